"""The mutation tests of the claims (the pipeline's rule ``mutations``, ``tables/mutations.csv``).

A testing device of the pipeline, not part of the installed package: broken variants of
OnlineRank (:mod:`mutants.learners`) and the table of the claims' verdicts under each of them
(:mod:`mutants.table`).  The rule's script, the Snakefile and the tests import it with ``workflow/``
on ``sys.path``.
"""
