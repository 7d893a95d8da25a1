"""k-way marginals of a table from one epsilon-LDP report per device.

``cells`` (cell indexing and marginals as a linear map), ``designs`` (the joint, CALM's
groups and the Fourier route, with exact variances), ``consistency`` (overlapping marginals
made to agree and non-negative), ``fitted`` (the requested marginals decoded from the groups'
statistics, with their intervals) and ``synthesis`` (a maximum-entropy model of the marginals
and rows drawn from it).
"""

from ldp.tasks.marginals.cells import (
    MAX_TABLE_CELLS,
    cell_index,
    cell_values,
    check_cells,
    check_sizes,
    marginal_matrix,
    marginalize,
)
from ldp.tasks.marginals.consistency import (
    component_weights,
    consistent_marginals,
    consistent_projection,
    overlap_gap,
    shared_columns,
)
from ldp.tasks.marginals.designs import (
    MAX_JOINT_CELLS,
    METHODS,
    ORACLES,
    PLANNING_USERS,
    MarginalDesign,
    auto_variance,
    best_oracle,
    build_design,
    candidate_designs,
    check_candidates,
    check_task,
    choose_design,
    requested_tables,
)
from ldp.tasks.marginals.fitted import (
    FittedMarginals,
    cell_intervals,
    check_group_reports,
    fit_marginals,
    holding_table,
)
from ldp.tasks.marginals.synthesis import (
    MAX_IPF_CELLS,
    JointModel,
    TreeModel,
    fit_ipf,
    fit_tree,
)

__all__ = [
    "MAX_IPF_CELLS",
    "MAX_JOINT_CELLS",
    "MAX_TABLE_CELLS",
    "METHODS",
    "ORACLES",
    "PLANNING_USERS",
    "FittedMarginals",
    "JointModel",
    "MarginalDesign",
    "TreeModel",
    "auto_variance",
    "best_oracle",
    "build_design",
    "candidate_designs",
    "cell_index",
    "cell_intervals",
    "cell_values",
    "check_candidates",
    "check_cells",
    "check_group_reports",
    "check_sizes",
    "check_task",
    "choose_design",
    "component_weights",
    "consistent_marginals",
    "consistent_projection",
    "fit_ipf",
    "fit_marginals",
    "fit_tree",
    "holding_table",
    "marginal_matrix",
    "marginalize",
    "overlap_gap",
    "requested_tables",
    "shared_columns",
]
