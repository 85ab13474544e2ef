/* --mode debug (and a preset's validation = true: verify.ini) for every
 * Vulkan plugin, built on vkh or not: the Vulkan
 * validation layer (enabled in the child by the backend table,
 * backend/backends.c, through core/child.c) logs its
 * messages to a file the harness names, through the layer's settings file,
 * and after each case the harness reads what was logged: an error makes
 * the case ERROR with the first message, warnings become a note. */
#ifndef BENCH_VK_VALIDATION_H
#define BENCH_VK_VALIDATION_H

#include "results/result.h"

/* In the parent, before a plugin's children start: a private folder with
 * the layer's settings (vk_layer_settings.txt) and its log. Returns 0, or
 * -1 after warning() (the layer then logs to the child's output as before). */
int vk_validation_open(void);
/* The layer's settings file there is the user's own (VK_LAYER_SETTINGS_PATH,
 * a file or a folder holding vk_layer_settings.txt; else the
 * vk_layer_settings.txt of the working folder, which the layer would read)
 * with the harness's keys added: debug_action and log_filename are the
 * harness's, report_flags keeps the user's flags with "error" added; every
 * other key (message_id_filter, enables, disables, ...) is kept. A named
 * file that cannot be read is one warning. */
/* In the parent, after the plugin's children: remove the folder. */
void vk_validation_close(void);
/* Whether a folder is open (--mode debug, validation = true): in a child,
 * what the layer logs is read after each case. */
int vk_validation_active(void);
/* Whether the Vulkan loader would find the validation layer: a manifest
 * (*.json) naming VK_LAYER_KHRONOS_validation in the folders it reads
 * explicit layers from on Linux: $VK_ADD_LAYER_PATH, then $VK_LAYER_PATH
 * alone when set, else vulkan/explicit_layer.d under $XDG_CONFIG_HOME
 * (~/.config), $XDG_CONFIG_DIRS (/etc/xdg), /etc, $XDG_DATA_HOME
 * (~/.local/share) and $XDG_DATA_DIRS (/usr/local/share:/usr/share). */
int vk_validation_layer_installed(void);

/* In a child, first thing: point the layer at the settings and start an
 * empty log. Nothing when no folder is open (not --mode debug). */
void vk_validation_child_begin(void);
/* In a child, after a case: what the layer logged since the last call
 * (init's messages go with the first case). An error turns an OK case into
 * ERROR with "Vulkan validation error: ID: message"; a case already failed
 * keeps its own message and gets the validation error as a note, as do
 * warnings. */
void vk_validation_take(struct case_result *r);
/* The same for what was logged outside a case: when names where ("init()",
 * "deinit()") in the message, "Vulkan validation error in deinit(): ID:
 * message". vk_validation_take(r) also adds, when the user's settings
 * filter messages (message_id_filter, disables), a note saying so. */
void vk_validation_take_in(struct case_result *r, const char *when);

#endif
