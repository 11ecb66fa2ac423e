"""Run by the launcher on 2 ranks (tests/distributed/test_data_parallel.py): rank 1 never
runs backward, so rank 0's overlapped bucket all-reduce must raise a TimeoutError naming
the rank and the call within the 3 s limit (mode 'hang'), or rank 1 is killed during it
(mode 'kill')."""
import os
import signal
import sys
import time

import sampan as paddle
import sampan.distributed as dist


def main(mode):
    dist.init_parallel_env(timeout=3)
    rank = dist.get_rank()
    paddle.seed(0)
    dp = paddle.DataParallel(paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.Tanh(),
                                                  paddle.nn.Linear(8, 2)),
                             comm_buffer_size=1e-6, last_comm_buffer_size=1e-6)
    loss = dp(paddle.ones([3, 4])).sum()
    if rank == 1:
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(60)
    loss.backward()
    print(f"rank {rank}: backward returned", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
