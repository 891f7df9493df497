# Shared definitions: output locations, the stages present in the config, and the code each step
# depends on (Snakemake does not see Python imports: `code` lists a step's script, the modules
# defining what it uses and everything they import, so editing a module reruns exactly the steps
# that use it).

from glob import glob

from onlinerank.cells import group_plugins, groups_of
from onlinerank.claims import REGISTRY, stages_of
from onlinerank.config import group_digest, section_digest
from onlinerank.pipeline import step_code
from onlinerank.provenance import config_digest
from onlinerank.settings import STAGES
from onlinerank.tables import BUILT_TABLES, TABLE_STAGE, table_pieces

# filled in by the schema's defaults: figures_dir is "{results_dir}/figures" unless the config
# names it (only the default tier names the tracked figures/)
RES = SETTINGS.results_dir
FIG = SETTINGS.figures_dir
# claims, figures and the manifest stamp this digest: as their params it reruns them on any
# config change; computing steps have narrower params (group_digest, section_digest)
CONFIG_DIGEST = config_digest(config)
#: config sections present: a stage absent from the config is not run
PRESENT = stages_of(config)
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


def claims_epilogue():
    """After a successful run: the verdict summary as the last lines (and, with
    `--config strict=true`, a non-zero exit if a claim of the paper FAILs)."""
    from onlinerank.claims.console import epilogue

    epilogue(rules.claims.output.json, f"{RES}/.claims_previous.json", strict=SETTINGS.strict)
