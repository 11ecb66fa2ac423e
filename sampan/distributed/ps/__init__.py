"""The parameter-server runtime: sharded sparse tables and dense parameters held by server
ranks (server.py), the trainers' client (client.py; LocalPS in-process), entry policies and
server-side optimizer rules. fleet (sampan.distributed.fleet) drives it.
"""
from .client import LocalPS, PSClient, TableConfig, get_client, set_client  # noqa: F401
from .entry import CountFilterEntry, EntryAttr, ProbabilityEntry, ShowClickEntry  # noqa: F401
