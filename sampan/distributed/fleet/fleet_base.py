"""The Fleet object behind `paddle.distributed.fleet.*`: init with a role maker, role
queries, and the two modes. Collective: DataParallel through the MPI collectives.
Parameter server: MPI ranks 0..S-1 serve (init_server/run_server), the others train through
a PSClient (init_worker/stop_worker); without a launcher the tables live in-process (LocalPS).
"""
from __future__ import annotations

from ..comm import DEFAULT_TIMEOUT, MpiComm
from ..env import _init_mpi_with_watchdog, init_parallel_env
from ..parallel import DataParallel
from ..ps import client as ps_client
from ..ps import heter as ps_heter
from ..ps.channel import Channel
from ..ps.server import PSServer
from .ps_dygraph import DistributedEmbedding, PSOptimizer, convert_embeddings, server_rule
from .role_maker import PaddleCloudRoleMaker, RoleMakerBase
from .strategy import DistributedStrategy
from .util_base import UtilBase


def _set_ops_client(client) -> None:
    from ...ops import ps as ps_ops
    ps_ops.set_ps_client(client)


class Fleet:
    """One per process (`fleet.fleet`); the module-level functions are its methods.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.distributed.fleet as fleet
        >>> fleet.init(is_collective=False)     # no launcher: one trainer, tables in-process
        >>> fleet.is_worker(), fleet.worker_index(), fleet.worker_num(), fleet.server_num()
        (True, 0, 1, 0)
        >>> fleet.init_worker()
        >>> opt = fleet.distributed_optimizer(paddle.optimizer.SGD(0.1, parameters=[]))
        >>> fleet.stop_worker()
    """

    def __init__(self) -> None:
        self._role = None
        self._strategy = DistributedStrategy()
        self._world = None
        self._role_comm = None
        self._server = None
        self._rule = None
        self._dropped: set = set()
        self._embeddings: list = []
        self._optimizer = None
        self._programs = None
        self.timeout = DEFAULT_TIMEOUT
        self.util = UtilBase(self)

    # --- setup ------------------------------------------------------------------------
    def init(self, role_maker=None, is_collective: bool = False, strategy=None,
             log_level="INFO") -> None:
        """Start fleet: collective (DataParallel over MPI) or parameter-server mode.

        Args:
            role_maker (RoleMakerBase, optional): default PaddleCloudRoleMaker(is_collective).
            is_collective (bool): collective (True) or parameter-server (False, default).
            strategy (DistributedStrategy, optional): default DistributedStrategy().
            log_level: accepted.
        """
        if role_maker is None:
            role_maker = PaddleCloudRoleMaker(is_collective=bool(is_collective))
        elif not isinstance(role_maker, RoleMakerBase):
            raise TypeError(f"fleet.init: role_maker must be a PaddleCloudRoleMaker or "
                            f"UserDefinedRoleMaker, got {type(role_maker).__name__}")
        if strategy is not None and not isinstance(strategy, DistributedStrategy):
            raise TypeError(f"fleet.init: strategy must be a DistributedStrategy, got "
                            f"{type(strategy).__name__}")
        # a new job: nothing of an earlier init (strategy, rule, programs) carries over
        self._role, self._strategy = role_maker, strategy or DistributedStrategy()
        self._rule, self._programs, self._dropped = None, None, set()
        self._embeddings, self._optimizer = [], None
        if role_maker._is_collective:
            init_parallel_env()
        elif role_maker._server_num() > 0 or role_maker._heter_worker_num() > 0:
            if self._world is None:
                self._start_mpi()
        elif role_maker._worker_num() > 1:
            raise ValueError(f"fleet.init: parameter-server mode with "
                             f"{role_maker._worker_num()} trainers needs servers; start the "
                             f"job with paddle.distributed.launch --server_num S "
                             f"--trainer_num T (or pass is_collective=True)")

    def _start_mpi(self) -> None:
        role = self._role
        servers, trainers = role._server_num(), role._worker_num()
        heters = role._heter_worker_num()
        # starting (imports, MPI_Init) may take long on a loaded machine: at least 60 s
        start_limit = max(self.timeout, 60.0)
        MPI = _init_mpi_with_watchdog(start_limit)
        world = MPI.COMM_WORLD
        if world.Get_size() != servers + trainers + heters:
            raise RuntimeError(f"fleet.init: the job has {servers} servers, {trainers} "
                               f"trainers and {heters} heter workers but MPI started "
                               f"{world.Get_size()} processes (start it with "
                               f"paddle.distributed.launch --server_num {servers} "
                               f"--trainer_num {trainers} --heter_worker_num {heters})")
        if world.Get_rank() != role._mpi_rank():
            raise RuntimeError(f"fleet.init: {role.to_string()} should be MPI rank "
                               f"{role._mpi_rank()}, is {world.Get_rank()}")
        MpiComm(world, 0, start_limit).barrier()   # everyone joined, or TimeoutError
        self._world = world
        sub = world.Split(2 if role._is_heter_worker() else 1 if role._is_server() else 0,
                          world.Get_rank())
        self._role_comm = MpiComm(sub, 0, self.timeout)

    def _comm_of(self, api: str, world: str):
        """The MpiComm of `world` ('worker', 'server', 'all') for fleet.util, None alone."""
        role = self._need(f"util.{api}")
        if role._is_collective:
            from ..env import _group
            comm = _group(api, None).comm
            return comm if isinstance(comm, MpiComm) else None
        if self._world is None:
            return None
        if world == "all":
            return MpiComm(self._world, 0, self.timeout)
        if (world == "server") != role._is_server():
            raise ValueError(f"fleet.util.{api}: comm_world {world!r} from a "
                             f"{'server' if role._is_server() else 'worker'}; only its own "
                             f"role's world or 'all'")
        return self._role_comm

    def _need(self, api: str):
        if self._role is None:
            raise RuntimeError(f"fleet.{api}: call fleet.init() first")
        return self._role

    def _ps(self, api: str):
        role = self._need(api)
        if role._is_collective:
            raise RuntimeError(f"fleet.{api}: parameter-server call in a collective job "
                               f"(fleet.init(is_collective=True))")
        return role

    # --- role queries -----------------------------------------------------------------
    def is_worker(self) -> bool:
        """Whether this process trains."""
        return self._need("is_worker")._is_worker()

    def is_server(self) -> bool:
        """Whether this process is a parameter server (or, as in Paddle 2.x, a heter
        worker: init_server/run_server serve its heter section)."""
        role = self._need("is_server")
        return role._is_server() or role._is_heter_worker()

    def is_first_worker(self) -> bool:
        """Whether this process is trainer 0."""
        return self._need("is_first_worker")._is_first_worker()

    def worker_index(self) -> int:
        """This trainer's index (-1 on a server)."""
        return self._need("worker_index")._worker_index()

    def worker_num(self) -> int:
        """Number of trainers."""
        return self._need("worker_num")._worker_num()

    def server_index(self) -> int:
        """This server's index (-1 on a trainer)."""
        return self._need("server_index")._server_index()

    def server_num(self) -> int:
        """Number of parameter servers."""
        return self._need("server_num")._server_num()

    def worker_endpoints(self, to_string: bool = False):
        """The trainers' "ip:port" list (a comma-joined str with to_string)."""
        eps = self._need("worker_endpoints")._get_trainer_endpoints()
        return ",".join(eps) if to_string else eps

    def server_endpoints(self, to_string: bool = False):
        """The servers' "ip:port" list (a comma-joined str with to_string)."""
        eps = self._need("server_endpoints")._get_pserver_endpoints()
        return ",".join(eps) if to_string else eps

    def barrier_worker(self) -> None:
        """Wait until every trainer reached this call (within the timeout)."""
        role = self._need("barrier_worker")
        if role._is_collective:
            from ..collective import barrier
            barrier()
        elif self._role_comm is not None and role._is_worker():
            self._role_comm.barrier()

    # --- parameter-server mode --------------------------------------------------------
    def server_rule(self) -> tuple:
        """The server-side optimizer rule (from the distributed optimizer)."""
        if self._rule is None:
            raise RuntimeError("fleet: the parameter servers' update rule comes from the "
                               "optimizer; call fleet.distributed_optimizer(optimizer) "
                               "before the first forward")
        return self._rule

    def _mode(self) -> str:
        return self._strategy.ps_mode()

    def init_worker(self, scopes=None) -> None:
        """Connect this trainer to the servers (PS mode; a no-op in collective mode)."""
        role = self._need("init_worker")
        if role._is_collective:
            return
        if not role._is_worker():
            raise RuntimeError("fleet.init_worker: this process is a server")
        if self._world is not None and role._heter_worker_num():
            ps_heter.enter_trainer(self._world, role, self.timeout)
        if self._world is None or not role._server_num():
            client = ps_client.LocalPS(sync=self._mode() == "sync")
        else:
            channel = Channel(self._world, f"trainer {role._worker_index()}", self.timeout)
            client = ps_client.PSClient(channel, role._server_num())
        if self._rule is not None:
            client.default_optimizer = self._rule
        ps_client.set_client(client)
        _set_ops_client(client)
        if self._programs is not None:   # static: tables exist, dense values from servers
            from ...static import global_scope
            from ..ps.transpiler import init_worker_program
            init_worker_program(client, self._programs["server"], global_scope())

    def stop_worker(self) -> None:
        """Tell the servers this trainer is done; they leave run_server once all are."""
        self._ps("stop_worker")
        ps_heter.stop_trainer()
        client = ps_client._CLIENT["client"]
        if client is not None:
            client.stop()
        ps_client.set_client(None)
        _set_ops_client(None)

    def init_server(self, dirname=None, var_names=None, **kwargs) -> None:
        """Prepare this server (static mode: from the server program). With `dirname`
        (what save_persistables wrote), tables and dense parameters start from the saved
        values as they are created."""
        role = self._ps("init_server")
        if role._is_heter_worker() and self._world is not None:
            self._server = ps_heter.enter_worker(self._world, role, self.timeout)
            if self._programs is not None:
                from ...static import Executor
                Executor().run(self._programs["startup"])
            return
        if not role._is_server() or self._world is None:
            raise RuntimeError("fleet.init_server: this process is not a parameter server "
                               "(start the job with paddle.distributed.launch --server_num)")
        channel = Channel(self._world, f"parameter server {role._server_index()}",
                          self.timeout)
        self._server = PSServer(channel, role._server_index(), role._server_num(),
                                role._worker_num(), self._mode() == "sync")
        if self._rule is not None:
            self._server.dense_optimizer = self._rule
        if dirname is not None:
            import os
            if not os.path.isdir(dirname):
                raise FileNotFoundError(f"fleet.init_server: no saved model in {dirname!r}")
            self._server.shard.load_dir = dirname
        if self._programs is not None:   # the dense values listen_and_serv serves
            from ...static import Executor
            Executor().run(self._programs["startup"])

    def run_server(self) -> None:
        """Serve the trainers until every one called stop_worker."""
        if self._server is None:
            raise RuntimeError("fleet.run_server: call fleet.init_server() first")
        if self._role._is_heter_worker():
            if self._programs is None:
                raise RuntimeError("fleet.run_server: a heter worker serves the program of "
                                   "fleet.distributed_optimizer(...).minimize(loss); call it "
                                   "first (static mode)")
            from ...static import Executor
            Executor(ps_heter.worker_place(self._role)).start_heter_trainer(
                self._programs["main"])
            return
        if self._programs is None:
            self._server.run()
            return
        from ...ops import ps as ps_ops
        from ...static import Executor
        ps_ops.set_ps_server(self._server.serve_program)
        try:
            Executor().run(self._programs["server"])
        finally:
            ps_ops.set_ps_server(None)

    def _static_minimize(self, inner, loss, startup_program, parameters, no_grad_set):
        from ...static import default_startup_program
        try:
            from ..ps.transpiler import transpile
        except ImportError as exc:
            raise NotImplementedError("fleet: static parameter-server training needs "
                                      "sampan.distributed.ps.transpiler") from exc
        result = inner.minimize(loss, startup_program, parameters, no_grad_set)
        main = loss.block.program
        startup = startup_program or default_startup_program()
        if self._role._is_heter_parameter_server_mode:
            if self._role._is_heter_worker():   # serves main's heter section as it is
                self._programs = {"main": main, "startup": startup}
                return result
            from ...static.heter import make_trainer_program
            make_trainer_program(main, [loss])
        trainer, server = transpile(main, startup, self._strategy, self._role)
        self._programs = {"trainer": trainer, "server": server, "startup": startup}
        return result

    # --- both modes -------------------------------------------------------------------
    def distributed_optimizer(self, optimizer, strategy=None):
        """Collective: `optimizer` itself (DataParallel syncs gradients). Parameter
        server: a PSOptimizer whose rule (SGD, Adagrad, Adam) the servers apply."""
        role = self._need("distributed_optimizer")
        if strategy is not None:
            if not isinstance(strategy, DistributedStrategy):
                raise TypeError(f"fleet.distributed_optimizer: strategy must be a "
                                f"DistributedStrategy, got {type(strategy).__name__}")
            self._strategy = strategy
        if role._is_collective:
            return optimizer
        self._rule = server_rule(optimizer)
        self._strategy.ps_mode()   # refuses GEO early
        client = ps_client._CLIENT["client"]
        if client is not None:
            client.default_optimizer = self._rule
        if self._server is not None:
            self._server.dense_optimizer = self._rule
        self._optimizer = PSOptimizer(optimizer, self)
        return self._optimizer

    def distributed_model(self, model):
        """Collective: DataParallel(model). Parameter server: each nn.Embedding(sparse=True)
        becomes a DistributedEmbedding whose table the servers hold."""
        role = self._need("distributed_model")
        if role._is_collective:
            return DataParallel(model)
        self._dropped.update(convert_embeddings(model))
        self._embeddings += [m for m in model.sublayers() if isinstance(m, DistributedEmbedding)]
        return model

    # --- saving the servers' state ----------------------------------------------------
    def save_persistables(self, executor=None, dirname: str = "", main_program=None,
                          mode: int = 0) -> None:
        """Parameter-server mode, from a trainer: every server writes its rows (with their
        optimizer state) and its dense parameters under `dirname` (call it on one trainer,
        e.g. `if fleet.is_first_worker()`)."""
        self._client("save_persistables").save(self._dirname("save_persistables", dirname))

    def load_model(self, path: str, mode: int = 0) -> None:
        """Parameter-server mode, from a trainer, before training: the servers read back
        what save_persistables wrote (any former number of servers) and this trainer
        takes the loaded dense values."""
        client = self._client("load_model")
        path = self._dirname("load_model", path)
        for layer in self._embeddings:   # dynamic mode: the tables must exist
            layer._client()
        params = self._optimizer._params() if self._optimizer is not None else []
        rule = self._rule or client.default_optimizer
        for p in params:
            client.init_dense(p.name, p.numpy(), rule)
            self._optimizer._on_server.add(p.name)
        client.load(path)
        for p in params:
            p.set_value(client.pull_dense(p.name).astype(p.numpy().dtype, copy=False))
        if self._programs is not None:
            from ...static import global_scope
            from ..ps.transpiler import server_config
            scope = global_scope()
            for name in server_config(self._programs["server"])["dense"]:
                scope.set(name, client.pull_dense(name).reshape(scope.get(name).shape))

    def _client(self, api: str):
        role = self._ps(api)
        client = ps_client._CLIENT["client"]
        if not role._is_worker() or client is None:
            raise RuntimeError(f"fleet.{api}: call it on a trainer after fleet.init_worker()")
        return client

    @staticmethod
    def _dirname(api: str, dirname) -> str:
        if not isinstance(dirname, str) or not dirname:
            raise ValueError(f"fleet.{api}: the folder must be a non-empty str, got "
                             f"{dirname!r}")
        return dirname


fleet = Fleet()
