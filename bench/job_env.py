"""A job's environment as Snakemake sets it (``snakemake/shell.py``): one thread for each linear
algebra library, the job's threads (every rule's script runs single-threaded).  No imports: the
test suite's Snakemake server reads this file by path, without importing ``bench`` or the
project (``tests/snakemake_server.py``), and :mod:`bench.estimate` sets it before numpy loads."""

JOB_ENV = {
    var: "1"
    for var in (
        "OMP_NUM_THREADS",
        "GOTO_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS",
        "NUMEXPR_NUM_THREADS",
    )
}
