"""Before/after: the suite's workloads timed for two dvlad trees, alternating process by process.

    git worktree add /tmp/before <commit>
    python benchmarks/compare.py a,b1000,d-saddle-FR /tmp/before .     # keys as in run.py

For each round and each tree in turn, a fresh process imports that tree's dvlad and benchmarks,
and times each workload with the suite's own ``run.problem`` and ``run.measure`` (the ratio to
its baseline in that process).  Prints, per workload, the median and minimum over the rounds for
each tree and their quotients.  On a noisy machine alternating trees is what makes the two
columns comparable: both share the same noise.
"""
import json
import statistics
import subprocess
import sys

CODE = r'''
import json, os, sys
tree = sys.argv[1]
sys.path.insert(0, os.path.join(tree, "benchmarks"))
sys.path.insert(0, tree)
os.chdir(os.path.join(tree, "benchmarks"))
import run
import with_dvlad as mod
out = {}
for key in sys.argv[2].split(","):
    call, base, check = run.problem(key, mod)
    assert check(call()), key
    out[key] = run.measure(call, base, 3 if key.startswith("d-") else 9, 60.0)[0]
print(json.dumps(out))
'''


def main(keys, before, after, rounds=3):
    results = {before: [], after: []}
    for _ in range(rounds):
        for tree in (before, after):
            done = subprocess.run([sys.executable, "-c", CODE, tree, keys], capture_output=True,
                                  text=True)
            if done.returncode:
                sys.exit(done.stderr[-3000:])
            results[tree].append(json.loads(done.stdout))
    print("| workload | before: median (min) | after: median (min) | after ÷ before |")
    print("|---|---|---|---|")
    for key in keys.split(","):
        b = [r[key] for r in results[before]]
        a = [r[key] for r in results[after]]
        print(f"| {key} | {statistics.median(b):.3g}× ({min(b):.3g}×) | "
              f"{statistics.median(a):.3g}× ({min(a):.3g}×) | "
              f"{statistics.median(a) / statistics.median(b):.2f} ({min(a) / min(b):.2f}) |")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
