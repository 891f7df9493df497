# Tables computed from the config alone (closed forms, exact sums, timings, the sampled Lemma 6.1
# check): one rule, driven by the table schemas `onlinerank.table_schemas.SCHEMAS` (each names its
# builder; the rule's code inputs are the builder's module and its imports).


rule table:
    input:
        code=lambda wc: code("table.py", BUILT_TABLES[wc.table].module),
    output:
        f"{RES}/tables/{{table}}.csv",
    log:
        f"{RES}/logs/table_{{table}}.log",
    benchmark:
        benchmark_path(RES, "table", "{table}")
    conda:
        "../../environment.yml"
    # wall-clock timings want the machine (capped by --cores) or, on SLURM, the node to themselves
    threads: lambda wc: 2 if wc.table == "runtime" else 1
    resources:
        slurm_extra=lambda wc: "'--exclusive'" if wc.table == "runtime" else "",
    params:
        spec=lambda wc: section_digest(config, *BUILT_TABLES[wc.table].keys),
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
