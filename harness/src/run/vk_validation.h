/* --mode debug for every Vulkan plugin, built on vkh or not: the Vulkan
 * validation layer (enabled in the child by core/child.c) logs its
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
/* In the parent, after the plugin's children: remove the folder. */
void vk_validation_close(void);

/* In a child, first thing: point the layer at the settings and start an
 * empty log. Nothing when no folder is open (not --mode debug). */
void vk_validation_child_begin(void);
/* In a child, after a case: what the layer logged since the last call
 * (init's messages go with the first case). An error turns an OK case into
 * ERROR with "Vulkan validation error: ID: message"; a case already failed
 * keeps its own message and gets the validation error as a note, as do
 * warnings. */
void vk_validation_take(struct case_result *r);

#endif
