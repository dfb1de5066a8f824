"""Whole-process wall times of two or more sidlens builds on the same command, the builds
alternated run by run so that a machine drifting over minutes affects them alike (not run in
CI). Prints each build's median, fastest and slowest wall time with user and system time
(getrusage of the child) and CPU use (100 % = one core busy).

    python3 scripts/alternate_runs.py N "{bin} stats --index DATA/synthetic.index.json --json" OLD NEW…

`{bin}` in the command is replaced by each build's path; each build runs N times."""
import os
import resource
import statistics
import subprocess
import sys
import time


def run_once(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def main():
    if len(sys.argv) < 4 or "{bin}" not in sys.argv[2]:
        sys.exit(__doc__)
    runs, command, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    times = {build: [] for build in builds}
    for _ in range(runs):
        for build in builds:
            times[build].append(run_once(command.replace("{bin}", build)))
    for build in builds:
        wall, user, system = (statistics.median(t[k] for t in times[build]) for k in range(3))
        walls = [t[0] for t in times[build]]
        print(f"{os.path.basename(build)}: wall median {wall:.3f} s (min {min(walls):.3f}, "
              f"max {max(walls):.3f}) | user {user:.3f} s, system {system:.3f} s | "
              f"CPU {100 * (user + system) / wall:.0f} %")


if __name__ == "__main__":
    main()
