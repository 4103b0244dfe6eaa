"""Coordinator views of a running campaign: the live campaign monitor and the adjudication
dialog, reached from the View menu of the full app (never from annotator mode)."""
