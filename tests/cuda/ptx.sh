# The PTX readers of tests/cuda's ISA tests (t_peak.sh, t_gemm_isa.sh),
# sourced after tests/cli/lib.sh (they write under $T): ptx extracts a
# plugin's PTX, ptx_loops counts the instructions of each kernel's main
# loop, count reads one count off a ptx_loops line.

# ptx_loops FILE...: one line per kernel: its name, then for the loop with
# the most instructions: each mnemonic (the first word of a statement,
# inline assembly's too) and its count, "loop=N" (its statements) and
# "stores=N" (st.global in the whole kernel).
ptx_loops() {
  python3 - "$@" <<'PY'
import collections, re, sys
for path in sys.argv[1:]:
    text = open(path, errors="replace").read()
    # an entry runs to the next (inline assembly has "}" lines of its own)
    for chunk in re.split(r"\.entry\s+", text)[1:]:
        name, body = re.match(r"(\w+)", chunk).group(1), chunk
        lines = [l.strip().lstrip("{").strip() for l in body.splitlines()]
        labels = {l[:-1]: i for i, l in enumerate(lines) if re.fullmatch(r"\$\w+:", l)}
        best = []
        for i, l in enumerate(lines):
            b = re.search(r"\bbra(?:\.uni)?\s+(\$\w+);", l)
            if b and b.group(1) in labels and labels[b.group(1)] < i:
                loop = lines[labels[b.group(1)]:i + 1]
                if len(loop) > len(best):
                    best = loop
        ops = collections.Counter()
        for l in best:
            w = re.match(r"(?:@!?%\w+\s+)?([a-z][\w.]*)", l)
            if w:
                ops[w.group(1)] += 1
        stores = sum(1 for l in lines if re.match(r"st\.global", l))
        print(name, " ".join("%s=%d" % kv for kv in sorted(ops.items())),
              "loop=%d stores=%d" % (len(best), stores))
PY
}

# count LINE MNEMONIC: the count of MNEMONIC in a ptx_loops line (0 if none)
count() {
  local v
  v=$(tr ' ' '\n' <<<"$1" | sed -n "s/^$(sed 's/\./\\./g' <<<"$2")=//p")
  echo "${v:-0}"
}

# ptx PLUGIN: its PTX entries in $T/PLUGIN/ptx.N.sm_XX
ptx() {
  mkdir -p "$T/$1"
  objcopy --dump-section .nv_fatbin="$T/$1/fb" "$PLUGIN_DIR/$1.so" "$T/$1/so.copy" 2>/dev/null
  python3 "$SRC/tests/cuda/fatbin.py" "$T/$1/fb" "$T/$1" >"$T/$1/entries"
}

# ptx_archs ARCH...: those of a CMAKE_CUDA_ARCHITECTURES list that carry
# PTX (N and N-virtual; N-real is SASS alone), as N
ptx_archs() {
  local a
  for a in "$@"; do
    case $a in *-real) ;; *) echo "${a%-virtual}" ;; esac
  done
}

# arch_loops PLUGIN ARCH OUT: ptx_loops of PLUGIN's PTX for sm_ARCH (after
# ptx PLUGIN) into OUT; a failure and 1 when the plugin has none
arch_loops() {
  local files=("$T/$1"/ptx.*.sm_"$2")
  [ -e "${files[0]}" ] || { fail "$1: no PTX for sm_$2"; return 1; }
  ptx_loops "${files[@]}" >"$3"
}
