#!/usr/bin/env bash
# docs/sdk.md, the SDK reference, names every member of every struct in
# <bench/plugin.h> (the host functions included), its enum constants and
# extension ids, and every function the Vulkan (vkh.h, vkh_compile.h,
# vk_rows.h) and HIP (hipb.h, hipb_rows.h) helper headers declare, each in a
# code span: a header that grows a field or a function without the reference
# fails here. The checker is first run on a copy of the page with one name
# removed, which it must refuse (a checker that accepts anything would pass).
. "$(dirname "$0")/../checks.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-docs.XXXXXX")
trap 'rm -rf "$T"' EXIT
DOC="$SRC/docs/sdk.md"
[ -f "$DOC" ] && ok || fail "no docs/sdk.md"

cat >"$T/check.py" <<'PY'
import re, sys
src, doc = sys.argv[1], sys.argv[2]

def code(path):
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)  # preprocessor lines
    return text

def struct_members(path):
    """{struct: [member, ...]} of every struct definition in the header."""
    out = {}
    for name, body in re.findall(r"\bstruct\s+(\w+)\s*\{(.*?)\}\s*;", code(path), re.S):
        members = []
        for decl in body.split(";"):
            decl = re.sub(r"BENCH_PRINTF\s*\([^)]*\)", "", decl).strip()
            if not decl:
                continue
            fn = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            if fn:
                members.append(fn.group(1))
                continue
            for part in decl.split(","):
                part = re.sub(r"\[[^\]]*\]", "", part).strip()
                m = re.search(r"(\w+)\s*$", part)
                if m:
                    members.append(m.group(1))
        out[name] = members
    return out

def functions(path, prefixes):
    names = set()
    for m in re.finditer(r"\b((?:%s)\w+)\s*(?:<[^<>()]*>)?\s*\(" % "|".join(prefixes), code(path)):
        # a declaration or definition: preceded on its line by a return type
        line = code(path)[:m.start()].rsplit("\n", 1)[-1]
        if re.search(r"\b(int|void|double|float|unsigned|size_t|char|T|dim3|int64_t|uint32_t|uint16_t|const|struct\s+\w+|enum\s+\w+)\s*\**\s*$", line):
            names.add(m.group(1))
    return names

spans = re.findall(r"`([^`]+)`", open(doc).read())
def named(name, call):
    for s in spans:
        s = " ".join(s.split())
        if s == name or re.fullmatch(re.escape(name) + r"\s*(\[[^\]]*\])?", s):
            return True
        if call and re.search(r"\b" + re.escape(name) + r"\s*[(<]", s):
            return True
    return False

plugin_h = src + "/harness/include/bench/plugin.h"
need = []
for struct, members in struct_members(plugin_h).items():
    need += [(struct + "." + m, m, False) for m in members]
text = open(plugin_h).read()
for c in sorted(set(re.findall(r"\b(BENCH_TOL_\w+|BENCH_PARAM_(?:INT|FLOAT|STRING)\b|BENCH_EXT_\w+|BENCH_TIER_\w+)", text))):
    need.append((c, c, False))
need.append(("bench_host_extension", "bench_host_extension", True))
helpers = {"plugins/vulkan/vkh/vkh.h": ["vkh_"], "plugins/vulkan/vkh/vkh_compile.h": ["vkh_"],
           "plugins/vulkan/vk_rows.h": ["vk_rows_"], "plugins/hip/hipb.h": ["hipb_"],
           "plugins/hip/hipb_rows.h": ["rows_"]}
nfun = 0
for path, prefixes in helpers.items():
    for f in sorted(functions(src + "/" + path, prefixes)):
        need.append((path + ": " + f, f, True))
        nfun += 1
missing = [what for what, name, call in need if not named(name, call)]
print("%d names (%d helper functions) checked against %s" % (len(need), nfun, doc))
# the header parse must have found what we know is there
for what in ("bench_host.fill_random", "bench_host.param_str", "bench_param.choices", "bench_compare.tol",
             "plugins/vulkan/vkh/vkh.h: vkh_case_run", "plugins/hip/hipb.h: hipb_begin"):
    if what not in [w for w, _, _ in need]:
        print("the header parse lost " + what)
        sys.exit(2)
if missing:
    print("not in " + doc + ": " + ", ".join(missing))
    sys.exit(1)
PY

# the checker refuses a page without fill_random, and one without vkh_case_run
sed 's/fill_random/fill_xxx/g' "$DOC" >"$T/no_fill.md"
python3 "$T/check.py" "$SRC" "$T/no_fill.md" >"$T/out1" 2>&1
expect_rc1=$?
[ "$expect_rc1" -eq 1 ] && grep -q "bench_host.fill_random" "$T/out1" && ok || { fail "checker accepted a page without fill_random"; cat "$T/out1"; }
sed 's/vkh_case_run/vkh_case_xxx/g' "$DOC" >"$T/no_vkh.md"
python3 "$T/check.py" "$SRC" "$T/no_vkh.md" >"$T/out2" 2>&1
[ $? -eq 1 ] && grep -q "vkh.h: vkh_case_run" "$T/out2" && ok || { fail "checker accepted a page without vkh_case_run"; cat "$T/out2"; }

# the real page
python3 "$T/check.py" "$SRC" "$DOC" >"$T/out" 2>&1 && ok || fail "docs/sdk.md is missing names"
cat "$T/out"
# linked from the README
grep -q '(docs/sdk.md)' "$SRC/README.md" && ok || fail "README does not link docs/sdk.md"
finish
