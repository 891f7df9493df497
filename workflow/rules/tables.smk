# Tables computed from the config alone (closed forms, exact sums, timings, the sampled Lemma 6.1
# check): one rule, driven by the table registry `onlinerank.tables.TABLES` (each table declared
# beside its builder; the rule's code inputs are the builder's module and its imports).


rule table:
    input:
        code=lambda wc: code("table.py", BUILT_TABLES[wc.table].build),
        # a table made in pieces (its schema's `pieces`) is their rows in order: pooled here
        pieces=lambda wc: piece_files(wc.table),
    output:
        f"{RES}/tables/{{table}}.csv",
    log:
        f"{RES}/logs/table_{{table}}.log",
    benchmark:
        benchmark_path(RES, "table", "{table}")
    # the tables need no simulation: they go first, and the timings (which take the whole machine)
    # before them, while it is free, rather than alone at the end of a run
    priority: lambda wc: 10 if BUILT_TABLES[wc.table].wall_clock else 1
    # with a cluster executor the table jobs go as group jobs (workflow/profiles/slurm sets their
    # size), all but a table of wall-clock timings, which asks for the node to itself (slurm_extra
    # below): the members of a group job must ask for the same slurm_extra
    group:
        lambda wc: None if BUILT_TABLES[wc.table].wall_clock else "tables"
    conda:
        "../../environment.yml"
    # wall-clock timings want the machine (capped by --cores) or, on SLURM, the node to themselves
    threads: lambda wc: table_threads(wc.table)
    resources:
        slurm_extra=lambda wc: "'--exclusive'" if BUILT_TABLES[wc.table].wall_clock else "",
    params:
        spec=lambda wc: section_digest(SETTINGS, *BUILT_TABLES[wc.table].keys),
        wall_clock=lambda wc: BUILT_TABLES[wc.table].wall_clock,
    script:
        "../scripts/table.py"


# One independent piece of a table made by several jobs (the worst-case tables: a point of the
# tightness grid, a learner of the comparison), so that no long table job runs alone.
rule table_piece:
    input:
        code=lambda wc: code("table.py", BUILT_TABLES[wc.table].build),
    output:
        f"{RES}/tables/pieces/{{table}}/{{piece}}.csv",
    log:
        f"{RES}/logs/table_{{table}}/{{piece}}.log",
    benchmark:
        benchmark_path(RES, "table_piece", "{table}/{piece}")
    conda:
        "../../environment.yml"
    # on SLURM the pieces join the group 'tables' (workflow/profiles/slurm), whose members must ask
    # for the same slurm_extra as the tables
    resources:
        slurm_extra="",
    params:
        spec=lambda wc: section_digest(SETTINGS, *BUILT_TABLES[wc.table].keys),
        wall_clock=False,
    script:
        "../scripts/table.py"


#: every table of the configured stages -> its file
TABLE = {
    name: (
        expand(rules.aggregate.output[0], stage=TABLE_STAGE[name])[0]
        if name.startswith("sim_")
        else expand(rules.table.output[0], table=name)[0]
    )
    for name in TABLE_STAGE
    if TABLE_STAGE[name] in PRESENT
}


rule bound_comparison_md:
    input:
        table=lambda wc: TABLE["bound_comparison"],
        code=code("bound_comparison_md.py"),
    output:
        f"{FIG}/bound_comparison.md",
    log:
        f"{RES}/logs/bound_comparison_md.log",
    benchmark:
        benchmark_path(RES, "bound_comparison_md")
    conda:
        "../../environment.yml"
    script:
        "../scripts/bound_comparison_md.py"
