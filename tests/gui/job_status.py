"""A job's status read afresh, for a test that checks it before and after a wait.

After ``assert job.status is JobStatus.RUNNING`` mypy keeps ``job.status`` narrowed to RUNNING
through the wait that changes it (it cannot see the job's thread), and would call a later
``job.status is JobStatus.SUCCEEDED`` impossible. A call returns the declared type again."""

from __future__ import annotations

from workbench.gui.jobs import Job, JobStatus


def status(job: Job) -> JobStatus:
    return job.status
