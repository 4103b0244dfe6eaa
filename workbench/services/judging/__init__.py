"""Judging a bundle: the use-case half of the LLM judge. The work list of pairs to judge, the
runner that sends them through :mod:`workbench.judge`'s client and stores every verdict with its
provenance, the response cache kept in the bundle, and the plan's wording shared by the CLI and
the dialog. :mod:`workbench.judge` stays a library that knows no bundle."""
