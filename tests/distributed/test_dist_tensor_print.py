"""A replicated distributed tensor prints Paddle 3.3.1's process_mesh/placements fields."""
import sampan as paddle
import sampan.distributed as dist

# Paddle 3.3.1, the dtensor_from_fn docstring example
WANT = ("Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True, "
        "process_mesh={shape: [2], process_ids: [0,1], dim_names: [x]}, "
        "placements=[Replicate()], GlobalDenseTensor=\n       [1.])")


def test_replicated_tensor_prints_mesh_and_placements():
    mesh = dist.ProcessMesh([0, 1], dim_names=["x"])
    assert str(dist.dtensor_from_fn(paddle.ones, mesh, [dist.Replicate()], shape=[1])) == WANT
    mesh2 = dist.ProcessMesh([[2, 4, 5], [0, 1, 3]], dim_names=["x", "y"])
    text = str(dist.shard_tensor(paddle.ones([2, 3]), mesh2, [dist.Replicate()] * 2))
    assert ("process_mesh={shape: [2,3], process_ids: [2,4,5,0,1,3], dim_names: [x,y]}, "
            "placements=[Replicate(), Replicate()], GlobalDenseTensor=\n") in text


def test_sharded_piece_prints_as_a_plain_tensor():
    # one process holds only its piece, not the global value Paddle would gather
    mesh = dist.ProcessMesh([0, 1], dim_names=["x"])
    text = str(dist.shard_tensor(paddle.ones([2, 3]), mesh, [dist.Shard(0)]))
    assert text.startswith("Tensor(shape=[1, 3], dtype=float32, place=Place(cpu), "
                           "stop_gradient=True,\n")
