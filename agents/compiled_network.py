"""A network's forward pass in compiled code (Numba), for searches written in compiled code:
the policy-value network inside Invers' search (:mod:`agents.invers.compiled_network_search`)
and the turn-value network inside Six Hundred's turn planner
(:mod:`agents.six_hundred.compiled_plan`, through :class:`CompiledMLP`).

A compiled search asks the network about the children of one node at a time from inside its
tree, where a call into torch would cost more than the arithmetic. :class:`CompiledHeads`
reads the layers of a :class:`~agents.network.PolicyValueNetwork` (Linear layers with ReLU
between them, as the shipped networks have) into transposed float32 arrays, and
:func:`forward` runs one head on a few rows.

**The arithmetic.** Each layer starts from its bias and adds the products of its inputs in
blocks of :data:`BLOCK` inputs (one block when there are fewer than 2 × ``BLOCK``), each
block's sum a chain of fused multiply-adds in input order. That is the order in which
torch's CPU kernel (MKL) adds up the hidden layers' products on the machine this was
written on (an AMD EPYC), so those layers come out the same bit for bit there; a head of
one output (the value) takes another kernel in torch and can differ in its last bit.
Unlike torch's, this order does not depend on the batch, the CPU or the library version:
a row's outputs are the same alone and in any batch. Inputs that are zero (most of a
one-hot board, and every ReLU that is off) are skipped where a group of four holds one
non-zero input at most: adding their zero products would leave the sum as it is.
"""

from __future__ import annotations

import numba
import numpy as np
import torch

from agents.network import PolicyValueNetwork

#: inputs per block of a layer's sum (see the module docstring)
BLOCK = 128


def _layer_arrays(layers: list) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """``(weights, biases)`` of ``[(weight, bias), relu, ..., (weight, bias)]``: each weight
    transposed to ``(inputs, outputs)``, float32 and contiguous."""
    linear = layers[::2]
    activations = layers[1::2]
    if (
        len(layers) % 2 == 0
        or not all(isinstance(layer, tuple) for layer in linear)
        or any(activation is not torch.relu for activation in activations)
    ):
        raise ValueError("compiled network: needs Linear layers with ReLU between them (as the shipped networks have)")
    weights = tuple(flushed(np.ascontiguousarray(w.detach().numpy().T, np.float32)) for w, _ in linear)
    biases = tuple(flushed(np.ascontiguousarray(b.detach().numpy(), np.float32)) for _, b in linear)
    return weights, biases


def flushed(array: np.ndarray) -> np.ndarray:
    """``array`` with its subnormal numbers (below float32's smallest normal, about 1.2e-38) made 0.

    Weight decay leaves weights the training no longer moves drifting into that range, and on
    some CPUs every multiply-add of a subnormal operand takes a slow path: a network trained
    past its first stage (2,350 such weights of 110,000) searched four times slower than the one
    before it on an Intel Xeon. A subnormal weight's product is below half a unit in the last
    place of any sum above about 1e-31, so it changes no sum a layer adds up but ones that
    small; flushing it leaves the values as they were and the arithmetic on its fast path."""
    array[np.abs(array) < np.finfo(np.float32).tiny] = 0.0
    return array


def supports(network) -> bool:
    """Whether :class:`CompiledHeads` can run ``network``: a :class:`~agents.network.PolicyValueNetwork`
    of Linear layers with ReLU between them."""
    if not isinstance(network, PolicyValueNetwork):
        return False
    try:
        _layer_arrays(network.value_layers)
        _layer_arrays(network.policy_layers)
    except ValueError:
        return False
    return True


def _versions(layers: list) -> tuple:
    """The parameters' identities and in-place versions: they change when training updates the weights."""
    return tuple((id(t), t._version) for layer in layers if isinstance(layer, tuple) for t in layer)


class CompiledHeads:
    """The value and policy heads of a :class:`~agents.network.PolicyValueNetwork` as the
    arrays :func:`forward` runs, read again (:meth:`refresh`) whenever training has changed
    the weights in place. ValueError if the layers are not Linear with ReLU between them."""

    def __init__(self, network):
        self.network = network
        self._read_at = None
        self.refresh()

    def refresh(self) -> None:
        """Read the weights again if they changed since they were last read."""
        versions = _versions(self.network.value_layers + self.network.policy_layers)
        if versions != self._read_at:
            self.value_weights, self.value_biases = _layer_arrays(self.network.value_layers)
            self.policy_weights, self.policy_biases = _layer_arrays(self.network.policy_layers)
            self.width = max(w.shape[1] for w in self.value_weights + self.policy_weights)
            self._read_at = versions


class CompiledMLP:
    """One stack of Linear layers with ReLU between them (``[(weight, bias), relu, ...]``, as
    :func:`agents.network.layers_of` reads a module list) as the arrays :func:`forward` runs,
    read again (:meth:`refresh`) whenever training has changed the weights in place; ``scale``
    and ``baseline`` ride along for the caller (a turn-value network's output scale and prior,
    :class:`agents.turn_value.TurnValueNet`). ValueError if the layers are not Linear with
    ReLU between them."""

    def __init__(self, layers: list, scale: float = 1.0, baseline: tuple[int, float] | None = None):
        self.layers, self.scale, self.baseline = layers, float(scale), baseline
        self._read_at = None
        self.refresh()

    def refresh(self) -> None:
        """Read the weights again if they changed since they were last read."""
        versions = _versions(self.layers)
        if versions != self._read_at:
            self.weights, self.biases = _layer_arrays(self.layers)
            self.width = max(w.shape[1] for w in self.weights)
            self._read_at = versions


@numba.njit(fastmath={"contract"}, cache=True)
def _dense(x, rows, inputs, weight, bias, out, block_sums, relu):
    """``out[r, :outputs] = bias + x[r, :inputs] @ weight`` for the first ``rows`` rows, in the
    order of the module docstring, then ReLU if ``relu``. Each weight row is read once for
    all the rows (the weights outgrow the fastest cache; the rows' sums do not)."""
    outputs = weight.shape[1]
    for r in range(rows):
        for j in range(outputs):
            out[r, j] = bias[j]
    block = inputs if inputs < 2 * BLOCK else BLOCK
    start = 0
    while start < inputs:
        stop = min(inputs, start + block)
        for r in range(rows):
            for j in range(outputs):
                block_sums[r, j] = 0.0
        k = start
        while k + 4 <= stop:  # four inputs at a time: one load and store of a sum for four products
            for r in range(rows):
                x0, x1, x2, x3 = x[r, k], x[r, k + 1], x[r, k + 2], x[r, k + 3]
                nonzero = (x0 != 0.0) + (x1 != 0.0) + (x2 != 0.0) + (x3 != 0.0)
                if nonzero > 1:
                    for j in range(outputs):  # a chain of fused multiply-adds ("contract"), in input order
                        block_sums[r, j] = (
                            ((block_sums[r, j] + x0 * weight[k, j]) + x1 * weight[k + 1, j]) + x2 * weight[k + 2, j]
                        ) + x3 * weight[k + 3, j]
                elif nonzero == 1:  # one input of the four (a one-hot board's usual case)
                    i = k if x0 != 0.0 else (k + 1 if x1 != 0.0 else (k + 2 if x2 != 0.0 else k + 3))
                    xi = x[r, i]
                    for j in range(outputs):
                        block_sums[r, j] += xi * weight[i, j]
            k += 4
        for k in range(k, stop):
            for r in range(rows):
                xk = x[r, k]
                if xk != 0.0:
                    for j in range(outputs):
                        block_sums[r, j] += xk * weight[k, j]
        for r in range(rows):
            for j in range(outputs):
                out[r, j] += block_sums[r, j]
        start = stop
    if relu:
        for r in range(rows):
            for j in range(outputs):
                if out[r, j] < 0.0:
                    out[r, j] = 0.0


@numba.njit(cache=True)
def forward(observations, rows, weights, biases, scratch, out):
    """One head of the network (``weights``/``biases``: a head's arrays from
    :class:`CompiledHeads`) on the first ``rows`` rows of ``observations``, into ``out[:rows]``
    (as many columns as the head has outputs). ``scratch``: float32 ``(3, rows or more, width)``,
    ``width`` at least the widest layer (:attr:`CompiledHeads.width`)."""
    layers = len(weights)
    x = observations
    inputs = observations.shape[1]
    for i in range(layers):
        last = i == layers - 1
        target = out if last else scratch[i % 2]
        _dense(x, rows, inputs, weights[i], biases[i], target, scratch[2], not last)
        x = target
        inputs = weights[i].shape[1]
