"""The type variables of border_py, declared once.

``O`` is an observation, ``A`` an action, ``I`` an item pushed into a buffer (what a step processor emits),
``B`` a batch sampled from it. Variance follows use: the env produces observations (covariant), a policy
consumes them (contravariant); a step processor produces items, the push side of a buffer consumes them; the
sample side produces batches, an agent consumes them.
"""

from typing import TypeVar

O = TypeVar("O")  # noqa: E741
A = TypeVar("A")
I = TypeVar("I")  # noqa: E741
B = TypeVar("B")

O_co = TypeVar("O_co", covariant=True)
O_contra = TypeVar("O_contra", contravariant=True)
A_co = TypeVar("A_co", covariant=True)
A_contra = TypeVar("A_contra", contravariant=True)
I_co = TypeVar("I_co", covariant=True)
I_contra = TypeVar("I_contra", contravariant=True)
B_co = TypeVar("B_co", covariant=True)
B_contra = TypeVar("B_contra", contravariant=True)
T_co = TypeVar("T_co", covariant=True)
