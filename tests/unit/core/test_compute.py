"""``providers.compute.product``: NumPy's product, computed by torch on the calling thread alone
(NumPy's ``@`` left OpenBLAS threads spinning on a core after every put)."""

from __future__ import annotations

import numpy as np
import pytest

from fleet_memory.providers.compute import product


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_product_is_numpys(dtype) -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((45, 384)).astype(dtype)
    b = rng.standard_normal((2_000, 384)).astype(dtype)
    got = product(a, b)
    assert got.dtype == dtype and got.shape == (45, 2_000)
    single = dtype == np.float32
    assert np.allclose(got, a @ b.T, rtol=1e-5 if single else 1e-12, atol=1e-4 if single else 1e-10)
    got[0, 0] = -np.inf  # the caller writes into it (``store.linking.semantic`` masks each unit's own column)


def test_product_of_a_slice_and_of_another_precision() -> None:
    rng = np.random.default_rng(4)
    a = rng.standard_normal((10, 8))
    b = rng.standard_normal((6, 8)).astype(np.float32)
    assert np.allclose(product(a[::2], b), a[::2] @ b.astype(np.float64).T, atol=1e-10)  # b taken in a's precision


def test_product_leaves_torchs_thread_count_as_it_was() -> None:
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(3)  # not 1, which the product itself runs on
    try:
        product(np.ones((2, 3)), np.ones((4, 3)))
        assert torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(before)
