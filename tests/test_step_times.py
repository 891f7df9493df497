"""The end-of-run time table (onlinerank.step_times): Snakemake's benchmark files of the jobs of one
run, summed by rule, with the longest jobs (files written here in Snakemake's format, their
seconds and times chosen)."""

import os
from pathlib import Path

from onlinerank.step_times import benchmark_path, read_benchmarks, time_lines

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def bench(root: Path, rule: str, job: str | None, seconds: float, mtime: float) -> None:
    path = Path(benchmark_path(str(root), rule, job))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{seconds:.2f}\t0:00:01\t1\t1\t1\t1\t0\t0\t50\t{seconds / 2:.2f}\n")
    os.utime(path, (mtime, mtime))


def test_the_jobs_of_one_run_summed_by_rule_with_the_longest(tmp_path):
    run = 2_000_000_000.0  # when the run started
    bench(tmp_path, "simulate", "upper/single/adversary-uniform/n-4/k-1/b0", 3.25, run + 5)
    bench(tmp_path, "simulate", "upper/single/adversary-uniform/n-8/k-1/b0", 4.5, run + 9)
    bench(tmp_path, "table", "worst_case", 12.0, run + 20)
    bench(tmp_path, "claims", None, 7.75, run + 30)
    bench(tmp_path, "table", "lower_hc", 99.0, run - 100)  # an earlier run's job
    (tmp_path / "benchmarks" / "table" / "broken.tsv").write_text("s\n")  # being written
    recs = read_benchmarks(tmp_path, since=run)
    assert recs == [
        ("table", "worst_case", 12.0),
        ("claims", "", 7.75),
        ("simulate", "upper/single/adversary-uniform/n-8/k-1/b0", 4.5),
        ("simulate", "upper/single/adversary-uniform/n-4/k-1/b0", 3.25),
    ]
    assert len(read_benchmarks(tmp_path)) == 5  # every run's files without `since`
    step, longest = time_lines(recs, longest=2)
    # 12 + 7.75 + 4.5 + 3.25 = 27.5 job-seconds; rules by their sums: 12, 7.75, 7.75 (2 jobs)
    assert step == ("Time by step: 4 jobs, 28 job-seconds: table 12 s, claims 8 s, simulate 8 s (2 jobs)")
    assert longest == "Longest jobs: table worst_case 12.0 s, claims 7.8 s"


def test_no_job_no_line(tmp_path):
    assert read_benchmarks(tmp_path / "nowhere") == []
    assert time_lines([]) == []
    assert time_lines([("manifest", "", 0.5)]) == [
        "Time by step: 1 job, 0 job-seconds: manifest 0 s",
        "Longest job: manifest 0.5 s",
    ]


def test_how_busy_the_cores_were_counts_each_job_on_the_cores_it_held(tmp_path):
    """Given the run's wall time and cores, a third line: core-seconds (a job's seconds times the
    cores it held, at most the run's) over wall x cores, naming the jobs on more than one core."""
    recs = [("table", "runtime", 12.0), ("simulate", "a/b0", 10.0), ("claims", "", 6.0)]
    lines = time_lines(recs, wall=20.0, cores=2, threads={("table", "runtime"): 2})
    # 12 x 2 + 10 + 6 = 40 core-seconds over 20 s x 2 cores
    assert (
        lines[2] == "Cores busy: 100% of 0:20 of wall on 2 cores (40 core-seconds; table runtime on 2 cores)"
    )
    # a job asks for more cores than the run has: it holds the run's
    lines = time_lines(recs, wall=125.0, cores=1, threads={("table", "runtime"): 2})
    assert lines[2] == "Cores busy: 22% of 2:05 of wall on 1 core (28 core-seconds)"
    # without the wall time or the cores (a cluster run): the two lines only
    assert len(time_lines(recs)) == len(time_lines(recs, wall=20.0)) == 2
