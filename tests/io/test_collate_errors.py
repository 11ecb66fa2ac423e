"""default_collate_fn: variable-length samples get an error naming the field and shapes."""
import numpy as np
import pytest

import sampan.io as io


class _Ragged(io.Dataset):
    def __init__(self, as_dict: bool):
        self.as_dict = as_dict

    def __len__(self):
        return 4

    def __getitem__(self, i):
        ids = np.ones([i + 1], "int64")
        return {"ids": ids, "label": i} if self.as_dict else (ids, np.int64(i))


@pytest.mark.parametrize("as_dict, field", [(False, r"sample\[0\]"),
                                            (True, r"sample\['ids'\]")])
def test_dataloader_names_the_ragged_field_and_suggests_collate_fn(as_dict, field):
    loader = io.DataLoader(_Ragged(as_dict), batch_size=2)
    with pytest.raises(ValueError, match=rf"cannot stack field {field} into a batch: the "
                                         rf"shapes differ between samples, got \[\[1\], "
                                         rf"\[2\]\]\..*collate_fn"):
        next(iter(loader))


def test_nested_field_path_and_bare_arrays():
    batch = [{"x": [np.zeros(2), np.zeros(3)]}, {"x": [np.zeros(2), np.zeros(4)]}]
    with pytest.raises(ValueError, match=r"field sample\['x'\]\[1\] .* got \[\[3\], \[4\]\]"):
        io.default_collate_fn(batch)
    with pytest.raises(ValueError, match=r"cannot stack the samples .* \[\[2\], \[3\]\]"):
        io.default_collate_fn([np.ones(2), np.ones(3)])


def test_a_padding_collate_fn_is_the_way_out():
    def pad(batch):
        width = max(len(ids) for ids, _ in batch)
        ids = np.stack([np.pad(ids, (0, width - len(ids))) for ids, _ in batch])
        return ids, np.array([y for _, y in batch])

    ids, labels = next(iter(io.DataLoader(_Ragged(False), batch_size=2, collate_fn=pad)))
    assert ids.shape == [2, 2] and labels.tolist() == [0, 1]
