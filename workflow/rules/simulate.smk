# Simulation stages: one job per (grid point, replicate block); one tidy table per stage.


rule simulate:
    input:
        # the engine and the plug-ins its cells use (adding a plug-in module reruns only its cells)
        code=lambda wc: code("simulate.py", *group_plugins(SETTINGS, wc.cell)),
    output:
        f"{RES}/sim/{{cell}}/b{{block}}.npz",
    log:
        f"{RES}/logs/sim/{{cell}}/b{{block}}.log",
    benchmark:
        benchmark_path(RES, "simulate", "{cell}/b{block}")
    conda:
        "../../environment.yml"
    params:
        spec=lambda wc: group_digest(SETTINGS, wc.cell),
    script:
        "../scripts/simulate.py"


rule aggregate:
    input:
        blocks=lambda wc: block_files(wc.stage),
        code=code("aggregate.py"),
    output:
        f"{RES}/tables/sim_{{stage}}.csv",
    log:
        f"{RES}/logs/aggregate_{{stage}}.log",
    benchmark:
        benchmark_path(RES, "aggregate", "{stage}")
    conda:
        "../../environment.yml"
    params:
        spec=lambda wc: section_digest(SETTINGS, wc.stage, "learners", "adversaries", "seed", "checkpoints"),
    script:
        "../scripts/aggregate.py"
