"""Arrays without reference counts inside numba kernels.

Numba counts references to every array it copies: each call passes its array arguments with an atomic add
and a subtraction at the callee's exit, each inlined helper copies its arguments, each view (``V[j]``,
``acc[k]``) counts its parent. In a kernel that calls helpers or takes views in its inner loops those atomic
operations cost a fifth or more of the time (measured with ``perf``: ``NRT_incref``/``NRT_decref`` were 21 %
of the Jotto exact search's samples and of a Dudo build's). ``borrow`` returns the same memory as an array
with no owner to count, so copies and views of it cost nothing. The caller must keep the original alive for
as long as the borrowed array is used: an argument of the kernel is (the caller holds it); an array the
kernel allocates must be used again after the last use of its borrowed view (``keep``)."""
from __future__ import annotations

from numba import carray, njit, types
from games import numba_cache  # noqa: F401  (one compile at a time across processes)
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def _as_pointer(typingctx, addr):
    sig = types.voidptr(types.intp)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def borrow(a):
    """``a``'s memory as a C-contiguous array with no reference count (``a`` must outlive it)."""
    if not a.flags.c_contiguous:
        raise ValueError("borrow: the array must be C-contiguous")
    return carray(_as_pointer(a.ctypes.data), a.shape, a.dtype)


@njit(cache=True, nogil=True)
def keep(owners):
    """A use of ``owners`` (an array or a tuple of them) at this point of a kernel: numba frees none of them
    before it."""
    return 0
