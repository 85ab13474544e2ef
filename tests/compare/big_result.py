#!/usr/bin/env python3
import json, os, sys
# big_result.py DIR TARGET_BYTES: one result file just above TARGET_BYTES, made by
# repeating the case gen_results wrote in DIR (index and m= differ per case)
d, target = sys.argv[1], int(sys.argv[2])
p = [os.path.join(d, x) for x in os.listdir(d) if x.endswith(".json")][0]
f = json.load(open(p))
case = f["cases"][0]
f["cases"] = []
head = json.dumps(f, indent=2)
cut = head.rindex("[]")
case["index"], case["params"]["m"] = 123456789, "MMMM"
tmpl = json.dumps(case, indent=2).replace("\n", "\n    ")
a, rest = tmpl.split("123456789")
b, c = rest.split("MMMM")
with open(p, "w") as out:
    out.write(head[:cut] + "[\n    ")
    n, size = 0, cut
    while size <= target:
        el = "%s%d%s%d%s" % (a, n, b, n, c)
        out.write((",\n    " if n else "") + el)
        size += len(el) + 6
        n += 1
    out.write("\n  ]\n}\n")
print(n)
