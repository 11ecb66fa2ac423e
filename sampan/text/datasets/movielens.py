"""Movielens: the MovieLens 1M ratings from ml-1m.zip (movies.dat, users.dat, ratings.dat)."""
from __future__ import annotations

import re
import zipfile

import numpy as np

from ...io.dataset import Dataset
from ...utils.data_files import resolve
from ._common import check_choice

__all__ = ["Movielens", "MovieInfo", "UserInfo"]

age_table = [1, 18, 25, 35, 45, 50, 56]
URL = "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"
MD5 = "c4d9eecfca2ab87c1945afe126590906"


class MovieInfo:
    """Movie id, categories and title."""

    def __init__(self, index: str, categories: list, title: str) -> None:
        self.index, self.categories, self.title = int(index), categories, title

    def value(self, categories_dict: dict, movie_title_dict: dict) -> list:
        return [[self.index], [categories_dict[c] for c in self.categories],
                [movie_title_dict[w.lower()] for w in self.title.split()]]

    def __repr__(self) -> str:
        return f"<MovieInfo id({self.index}), title({self.title}), categories({self.categories})>"


class UserInfo:
    """User id, gender, age bucket and job id."""

    def __init__(self, index: str, gender: str, age: str, job_id: str) -> None:
        self.index, self.is_male = int(index), gender == "M"
        self.age, self.job_id = age_table.index(int(age)), int(job_id)

    def value(self) -> list:
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __repr__(self) -> str:
        return (f"<UserInfo id({self.index}), gender({'M' if self.is_male else 'F'}), "
                f"age({age_table[self.age]}), job({self.job_id})>")


class Movielens(Dataset):
    """MovieLens 1M samples: (user id, gender, age, job, movie id, categories, title word
    ids, rating * 2 - 5), each an ndarray.

    Each rating line goes to 'test' with probability test_ratio, drawn from a NumPy
    RandomState(rand_seed) (Paddle's split, without reseeding the global NumPy generator).
    Title words and categories are numbered in sorted order.

    Args:
        data_file (str, optional): ml-1m.zip; None: the cache
            (~/.cache/paddle/dataset/sentiment/), downloaded if download=True. Default: None.
        mode (str, optional): 'train' or 'test'. Default: 'train'.
        test_ratio (float, optional): the test share. Default: 0.1.
        rand_seed (int, optional): seed of the split. Default: 0.
        download (bool, optional): download a missing cache file. Default: True.

    Examples:
        >>> from sampan.text.datasets import Movielens
        >>> Movielens(mode='test', download=False)  # doctest: +SKIP
    """

    def __init__(self, data_file: str | None = None, mode: str = "train",
                 test_ratio: float = 0.1, rand_seed: int = 0, download: bool = True) -> None:
        self.mode = check_choice(mode, ("train", "test"), "Movielens", "mode")
        if not 0 <= test_ratio <= 1:
            raise ValueError(f"Movielens: test_ratio must be in [0, 1], got {test_ratio}")
        self.test_ratio, self.rand_seed = test_ratio, rand_seed
        self.data_file = resolve(data_file, URL, MD5, "sentiment", download, "Movielens",
                                 "data_file")
        try:
            with zipfile.ZipFile(self.data_file) as package:
                self._load_meta_info(package)
                self._load_data(package)
        except (zipfile.BadZipFile, KeyError, EOFError) as exc:
            raise ValueError(f"Movielens: {self.data_file} is not a complete ml-1m zip "
                             f"({type(exc).__name__}: {exc})") from None

    @staticmethod
    def _read(package: zipfile.ZipFile, name: str) -> list:
        return [line.strip().split("::")
                for line in package.read(name).decode("latin").splitlines() if line.strip()]

    def _load_meta_info(self, package: zipfile.ZipFile) -> None:
        pattern = re.compile(r"^(.*)\((\d+)\)$")
        self.movie_info, self.user_info = {}, {}
        words, categories = set(), set()
        for movie_id, title, cats in self._read(package, "ml-1m/movies.dat"):
            match = pattern.match(title)
            if match is None:
                raise ValueError(f"Movielens: movie title {title!r} in {self.data_file} lacks "
                                 f"its '(year)'")
            cats = cats.split("|")
            categories.update(cats)
            self.movie_info[int(movie_id)] = MovieInfo(movie_id, cats, match.group(1))
            words.update(w.lower() for w in match.group(1).split())
        self.movie_title_dict = {w: i for i, w in enumerate(sorted(words))}
        self.categories_dict = {c: i for i, c in enumerate(sorted(categories))}
        for uid, gender, age, job, _ in self._read(package, "ml-1m/users.dat"):
            self.user_info[int(uid)] = UserInfo(uid, gender, age, job)

    def _load_data(self, package: zipfile.ZipFile) -> None:
        draw = np.random.RandomState(self.rand_seed)
        is_test = self.mode == "test"
        self.data = []
        for uid, mov_id, rating, _ in self._read(package, "ml-1m/ratings.dat"):
            if (draw.random_sample() < self.test_ratio) != is_test:
                continue
            usr, mov = self.user_info[int(uid)], self.movie_info[int(mov_id)]
            self.data.append(usr.value() + mov.value(self.categories_dict,
                                                     self.movie_title_dict)
                             + [[float(rating) * 2 - 5.0]])

    def __getitem__(self, idx: int) -> tuple:
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self) -> int:
        return len(self.data)
