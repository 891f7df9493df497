# Shared definitions: output locations, the stages present in the config, and the code each step
# depends on (Snakemake does not see Python imports: `code` lists a step's script, the modules
# defining what it uses and everything they import, so editing a module reruns exactly the steps
# that use it).

from glob import glob

from onlinerank.cells import group_plugins, groups_of
from onlinerank.claims import REGISTRY, stages_of
from onlinerank.figures import FIGURES
from onlinerank.config import group_digest, section_digest
from onlinerank.pipeline import step_code
from onlinerank.provenance import config_digest
from onlinerank.settings import STAGES
from onlinerank.step_times import benchmark_path
from onlinerank.tables import BUILT_TABLES, TABLE_STAGE, table_pieces

#: when this run started (the Snakefile is read first): the jobs whose benchmark files are newer
#: ran in it, and the end-of-run time table sums them
RUN_STARTED = time.time()

# filled in by the schema's defaults: figures_dir is "{results_dir}/figures" unless the config
# names it (only the default tier names the tracked figures/)
RES = SETTINGS.results_dir
FIG = SETTINGS.figures_dir
# claims, figures and the manifest stamp this digest: as their params it reruns them on any
# config change; computing steps have narrower params (group_digest, section_digest)
CONFIG_DIGEST = config_digest(SETTINGS.as_config())
#: config sections present: a stage absent from the config is not run
PRESENT = stages_of(SETTINGS)
SIM_STAGES = [s for s in STAGES if s in PRESENT]
SCRIPTS = os.path.join(workflow.basedir, "workflow", "scripts")
# the mutation tests (package `mutants`): a testing device of the pipeline, not installed
MUTANTS = os.path.join(workflow.basedir, "workflow", "mutants")
if os.path.dirname(MUTANTS) not in sys.path:
    sys.path.insert(0, os.path.dirname(MUTANTS))


SRC = os.path.join(workflow.basedir, "src", "onlinerank")


def code(script, *uses):
    """Code inputs of a step (:func:`onlinerank.pipeline.step_code`): its script, the modules that
    define what it uses (the plug-ins of its cells, its table's builder, its figure's drawing, the
    claims it evaluates) and every module they import, transitively."""
    return step_code(os.path.join(SCRIPTS, script), *uses, root=workflow.basedir)


def claim_title(claim_id):
    """``<id>: <title>`` of a registered claim (the report's subcategory of its figures)."""
    return f"{claim_id}: {REGISTRY[claim_id].title}"


def claims_text(claim_ids):
    """The claims a figure supports, as its caption in the report names them."""
    titles = ", ".join(f"**{claim_title(c)}**" for c in claim_ids)
    return f"the claim{'s' if len(claim_ids) > 1 else ''} {titles}"


def figure_caption_file(name):
    """The caption of figure ``name`` in the HTML report, written by the figure's job (the
    report reads a caption from a file, one per figure of a batch)."""
    return f"{RES}/report/figures/{name}.rst"


def figure_caption(name):
    """The text of figure ``name``'s caption file: its caption and the claims it supports
    (reStructuredText, taken literally by the report's template engine)."""
    spec = FIGURES[name]
    return (
        "{% raw %}\n"
        + f"{spec.caption}\n\nSupports {claims_text(spec.claims)}; the verdicts are on the first page "
        + "of this report and every cell is in ``claims.md``.\n{% endraw %}\n"
    )


def figure_png(name):
    """The figure's PNG, in the HTML report under the section and claim it supports."""
    claim = FIGURES[name].claims[0]
    return report(
        f"{FIG}/{name}.png",
        # absolute: Snakemake reads a relative caption path from the rule file's folder
        caption=os.path.abspath(figure_caption_file(name)),
        category=SECTION_TITLE[REGISTRY[claim].section],
        subcategory=claim_title(claim),
    )


def piece_files(table):
    """The files of a table's pieces (:func:`onlinerank.tables.base.table_pieces`), in row order;
    none for a table made by one job."""
    return [f"{RES}/tables/pieces/{table}/{p}.csv" for p in table_pieces(table, SETTINGS)]


wildcard_constraints:
    cell=r"[^/]+/[^/]+(/[^/]+)*",
    piece=r"[^/]+",
    block=r"\d+",
    stage="|".join(STAGES),
    table="|".join(BUILT_TABLES),


def block_files(stage):
    """One file per (job directory, replicate block); a job simulates every T of its grid point."""
    return [
        f"{RES}/sim/{g}/b{b}.npz"
        for g, cells in groups_of(SETTINGS, stage).items()
        for b in range(cells[0].blocks)
    ]


def table_threads(table):
    """The cores a table job asks for: wall-clock timings want the machine (capped by --cores) or,
    on SLURM, the node to themselves: at least 2, and one for each timing process that runs at a
    time (runtime.concurrent); every other table 1."""
    return max(2, SETTINGS.runtime.concurrent) if BUILT_TABLES[table].wall_clock else 1


def run_epilogue():
    """After a successful run: the time of each step of this run (job-seconds by rule, the longest
    jobs; from the benchmark files) and, run here on local cores, how busy they were (wall time
    since the Snakefile was read), then the verdict summary as the last lines (and, with
    `--config strict=true`, a non-zero exit if a claim of the paper FAILs)."""
    from onlinerank.claims.console import epilogue
    from onlinerank.step_times import read_benchmarks, time_lines

    local = workflow.local_exec and workflow._cores
    lines = time_lines(
        read_benchmarks(RES, since=RUN_STARTED),
        wall=time.time() - RUN_STARTED if local else None,
        cores=workflow._cores if local else None,
        threads={
            ("table", t): table_threads(t) for t in TABLE if t in BUILT_TABLES and BUILT_TABLES[t].wall_clock
        },
    )
    if lines:
        print("\n".join(["", *lines]), file=sys.stderr, flush=True)
    epilogue(rules.claims.output.json, f"{RES}/.claims_previous.json", strict=SETTINGS.strict)
