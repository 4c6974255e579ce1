#!/usr/bin/python3
"""cbtrain.py - train the learned Call Break networks (games/ai/callbreak_net.h)
from the records tests/bench/cbdata.c writes, and write games/ai/callbreak_weights.h.

    /usr/bin/python3 tests/bench/cbtrain.py OUT.h SEED PREFIX...

Every PREFIX.play and PREFIX.bid is read, and PREFIX.q where there is one. The
`own` play network learns the card the hard seats chose, the `field` play network the card their opponents
(medium and ismcts) chose (cross-entropy over the legal cards); beside the
cards, each learns the tricks the seat then took to the end of the round
(squared error, a tenth of the weight): the value of the position, kept beside
the card scores. With CB_TRAIN_TAU=T > 0, where the records carry the search's
value of every card (PREFIX.q), `own` learns instead the chances softmax(value
/ T) over the cards the search valued (soft targets: how much better a card is,
not only which one was best). Beside the agreement, the held-out lines say the
regret: the search's best value less the value of the card the network plays,
a mean over the valued records (in the search's unit, a thousandth of a game
won). The bid network learns the distribution of the tricks a
hard seat's hand took, given the bids before it. The three side suits play
alike, so each batch is seen under one of their six orders. A twentieth of
the records is held out and its loss and accuracy printed. Deterministic from
SEED on one machine. With CB_TRAIN_BLOB=FILE the same weights are also
written to FILE as build/bench/cbdata NET=FILE reads them (the next round
of self-play from the network just trained). A developer's tool: the
product reads only the header it writes.
"""
import itertools
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn

PLAY_IN, PLAY_HID, BID_IN, BID_HID, BID_OUT = 297, 128, 84, 64, 14
SEER_IN = PLAY_IN + 156
VERSION = 3
PLAY_REC = 16 + 4 * PLAY_IN
BID_REC = 8 + 4 * BID_IN
HARD, MEDIUM, ISMCTS = 3, 2, 5

PLAY_DT = np.dtype([("kind", "u1"), ("who", "u1"), ("card", "u1"), ("after", "u1"), ("final", "u1"),
                    ("bid", "u1"), ("pad", "u2"), ("legal", "<u8"), ("x", "<f4", (PLAY_IN,))])
BID_DT = np.dtype([("kind", "u1"), ("who", "u1"), ("bid", "u1"), ("tricks", "u1"), ("pad", "<u4"),
                   ("x", "<f4", (BID_IN,))])
SEER_DT = np.dtype([("kind", "u1"), ("who", "u1"), ("card", "u1"), ("after", "u1"), ("final", "u1"),
                    ("bid", "u1"), ("pad", "u2"), ("legal", "<u8"), ("x", "<f4", (SEER_IN,))])
assert PLAY_DT.itemsize == PLAY_REC and BID_DT.itemsize == BID_REC


def card_perm(order):
    """Card index map for side suits 1..3 sent to order[0..2] (spades stay)."""
    suit = [0] + list(order)
    return np.array([suit[c // 13] * 13 + c % 13 for c in range(52)])


def play_perm(order, n_in=PLAY_IN):
    """Input index map of the play network (or a seer, n_in = SEER_IN) under a side-suit order."""
    cp = card_perm(order)
    suit = [0] + list(order)
    idx = np.arange(n_in)
    for block in range((n_in - PLAY_IN) // 52):  # a seer's other hands
        idx[PLAY_IN + block * 52:PLAY_IN + (block + 1) * 52] = PLAY_IN + block * 52 + cp
    for block in range(5):  # hand, unseen, table x3
        idx[block * 52:(block + 1) * 52] = block * 52 + cp
    for r in range(3):
        for u in range(4):
            idx[260 + r * 4 + u] = 260 + r * 4 + suit[u]
    return idx, cp


def bid_perm(order):
    cp = card_perm(order)
    idx = np.arange(BID_IN)
    idx[:52] = cp
    return idx


ORDERS = list(itertools.permutations([1, 2, 3]))


def load_q(prefix, n):
    """PREFIX.q, the search's value of each card of each play record (NaN: none), if written."""
    if not os.path.exists(prefix + ".q"):
        return np.full((n, 52), np.nan, dtype=np.float32)
    q = np.fromfile(prefix + ".q", dtype="<f4").reshape(-1, 52)
    assert len(q) == n, (prefix, len(q), n)
    return q


def load(prefixes):
    plays = [np.fromfile(p + ".play", dtype=PLAY_DT) for p in prefixes]
    q = np.concatenate([load_q(p, len(a)) for p, a in zip(prefixes, plays)])
    play = np.concatenate(plays)
    bid = np.concatenate([np.fromfile(p + ".bid", dtype=BID_DT) for p in prefixes])
    hard = play["who"] == HARD
    field = (play["who"] == MEDIUM) | (play["who"] == ISMCTS)
    return play[hard], q[hard], play[field], q[field], bid[bid["who"] == HARD]


class PlayNet(nn.Module):
    def __init__(self, n_in=PLAY_IN):
        super().__init__()
        self.l1 = nn.Linear(n_in, PLAY_HID)
        self.pol = nn.Linear(PLAY_HID, 52)
        self.val = nn.Linear(PLAY_HID, 1)

    def forward(self, x):
        h = torch.relu(self.l1(x))
        return self.pol(h), self.val(h).squeeze(1)


class BidNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(BID_IN, BID_HID)
        self.l2 = nn.Linear(BID_HID, BID_OUT)

    def forward(self, x):
        return self.l2(torch.relu(self.l1(x)))


def legal_mask(legal):
    bits = (legal[:, None] >> np.arange(52, dtype=np.uint64)[None, :]) & np.uint64(1)
    return bits.astype(bool)


def soft_targets(qb, yb, tau):
    """The search's values as chances over the cards (softmax of value / tau over
    the cards it valued); a record it did not value keeps its card (one-hot)."""
    fin = torch.isfinite(qb)
    has = fin.sum(1) > 1
    t = torch.softmax(torch.where(fin, qb / tau, torch.full_like(qb, -1e9)), 1)
    one = nn.functional.one_hot(yb, 52).float()
    return torch.where(has[:, None], t, one)


def regret(logits, qh):
    """Mean over the records the search valued: its best value less the value of the card played."""
    fin = torch.isfinite(qh)
    has = fin.sum(1) > 1
    if not has.any():
        return float("nan")
    q = torch.where(fin, qh, torch.full_like(qh, -1e30))
    pick = logits.argmax(1)
    got = q.gather(1, pick[:, None]).squeeze(1)
    return (q.max(1).values - got)[has].mean().item()


def train_play(play, q, rng, epochs, name, tau=0.0):
    n_in = play["x"].shape[1]
    n = len(play)
    order = rng.permutation(n)
    hold = order[: n // 20]
    fit = order[n // 20:]
    x = torch.from_numpy(play["x"].copy())
    y = torch.from_numpy(play["card"].astype(np.int64))
    after = torch.from_numpy(play["after"].astype(np.float32))
    mask = torch.from_numpy(legal_mask(play["legal"]))
    qv = torch.from_numpy(q)
    perms = [tuple(torch.from_numpy(a) for a in play_perm(o, n_in)) for o in ORDERS]
    net = PlayNet(n_in)
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    steps = epochs * (len(fit) // 512)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=max(steps, 1))
    step = 0
    for ep in range(epochs):
        sh = fit[rng.permutation(len(fit))]
        tot = 0.0
        for i in range(0, len(sh) - 511, 512):
            b = torch.from_numpy(sh[i:i + 512])
            pi, cp = perms[rng.integers(6)]
            # under the suit order: input j moves to pi[j], card c to cp[c]
            xb = torch.zeros(512, n_in)
            xb[:, pi] = x[b]
            mb = torch.zeros(512, 52, dtype=torch.bool)
            mb[:, cp] = mask[b]
            yb = cp[y[b]]
            logits, v = net(xb)
            logits = logits.masked_fill(~mb, -1e9)
            if tau > 0:
                qb = torch.full((512, 52), float("nan"))
                qb[:, cp] = qv[b]
                tb = soft_targets(qb, yb, tau)
                card_loss = -(tb * torch.log_softmax(logits, 1)).sum(1).mean()
            else:
                card_loss = nn.functional.cross_entropy(logits, yb)
            loss = card_loss + 0.1 * nn.functional.mse_loss(v, after[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step < steps:
                sched.step()
            step += 1
            tot += loss.item()
        with torch.no_grad():
            hb = torch.from_numpy(hold)
            logits, v = net(x[hb])
            logits = logits.masked_fill(~mask[hb], -1e9)
            acc = (logits.argmax(1) == y[hb]).float().mean().item()
            ce = nn.functional.cross_entropy(logits, y[hb]).item()
            mse = nn.functional.mse_loss(v, after[hb]).item()
            reg = regret(logits, qv[hb])
        print(f"{name} epoch {ep + 1}: train loss {tot / max(1, len(sh) // 512):.4f}  held-out: card agreement "
              f"{100 * acc:.1f}%  cross-entropy {ce:.4f}  tricks mse {mse:.3f}  regret {reg:.2f}", flush=True)
    return net


def train_bid(bid, rng, epochs):
    n = len(bid)
    order = rng.permutation(n)
    hold = order[: n // 20]
    fit = order[n // 20:]
    x = torch.from_numpy(bid["x"].copy())
    y = torch.from_numpy(np.minimum(bid["tricks"], 13).astype(np.int64))
    perms = [torch.from_numpy(bid_perm(o)) for o in ORDERS]
    net = BidNet()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-5)
    for ep in range(epochs):
        sh = fit[rng.permutation(len(fit))]
        for i in range(0, len(sh) - 255, 256):
            b = torch.from_numpy(sh[i:i + 256])
            pi = perms[rng.integers(6)]
            xb = torch.zeros(256, BID_IN)
            xb[:, pi] = x[b]
            loss = nn.functional.cross_entropy(net(xb), y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            hb = torch.from_numpy(hold)
            out = net(x[hb])
            ce = nn.functional.cross_entropy(out, y[hb]).item()
            p = torch.softmax(out, 1)
            made = (bid["tricks"][hold] >= bid["bid"][hold]).mean()
            cum = torch.cumsum(p.flip(1), 1).flip(1)  # P(T >= t)
            pm = cum[torch.arange(len(hold)), torch.from_numpy(bid["bid"][hold].astype(np.int64))].mean().item()
        if ep == epochs - 1 or (ep + 1) % 5 == 0:
            print(f"bid epoch {ep + 1}: held-out cross-entropy {ce:.4f}; bids made {100 * made:.1f}%, "
                  f"predicted {100 * pm:.1f}%", flush=True)
    return net


def fnv(data, version):
    h = 2166136261 ^ version
    for byte in data:
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return h


def write_header(path, own, field, bidnet, note):
    arrays = []
    for pre, net in (("own.", own), ("field.", field)):
        arrays += [
            (pre + "w1", net.l1.weight.detach().numpy().T),
            (pre + "b1", net.l1.bias.detach().numpy()),
            (pre + "w2", net.pol.weight.detach().numpy()),
            (pre + "b2", net.pol.bias.detach().numpy()),
            (pre + "wv", net.val.weight.detach().numpy()[0]),
            (pre + "bv", net.val.bias.detach().numpy()),
        ]
    arrays += [
        ("bw1", bidnet.l1.weight.detach().numpy().T),
        ("bb1", bidnet.l1.bias.detach().numpy()),
        ("bw2", bidnet.l2.weight.detach().numpy()),
        ("bb2", bidnet.l2.bias.detach().numpy()),
    ]
    arrays = [(n, np.ascontiguousarray(a, dtype="<f4")) for n, a in arrays]
    blob = b"".join(a.tobytes() for _, a in arrays)
    total = sum(a.size for _, a in arrays)
    expect = 2 * (PLAY_IN * PLAY_HID + PLAY_HID + 52 * PLAY_HID + 52 + PLAY_HID + 1) + BID_IN * BID_HID + BID_HID + \
        BID_OUT * BID_HID + BID_OUT
    assert total == expect, (total, expect)
    sum_ = fnv(blob, VERSION)

    def hexf(v):
        return float(v).hex() + "f"

    out = ["/*",
           " * callbreak_weights.h - the weights of the learned Call Break networks",
           " * (callbreak_net.h), generated by tests/bench/cbtrain.py (make",
           " * train-callbreak): " + note + ".",
           " * Do not edit: callbreak_net_builtin() refuses weights whose checksum",
           " * does not match CALLBREAK_WEIGHTS_SUM.",
           " */",
           f"#define CALLBREAK_WEIGHTS_VERSION {VERSION}",
           f"#define CALLBREAK_WEIGHTS_SUM 0x{sum_:08x}u",
           "",
           "static const struct callbreak_net callbreak_weights = {"]
    for name, a in arrays:
        if a.size == 1:  # a scalar member
            out.append(f".{name} = {hexf(a[0])},")
            continue
        out.append(f".{name} = {{")
        rows = a if a.ndim == 2 else [a]
        for row in rows:
            if a.ndim == 2:
                out.append("{")
            for i in range(0, len(row), 6):
                out.append("\t" + " ".join(hexf(v) + "," for v in row[i:i + 6]))
            if a.ndim == 2:
                out.append("},")
        out.append("},")
    out.append("};")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    blob_path = os.environ.get("CB_TRAIN_BLOB")
    if blob_path:  # the same weights for build/bench/cbdata NET=FILE
        with open(blob_path, "wb") as f:
            f.write(np.array([VERSION, sum_], dtype="<u4").tobytes() + blob)
    return sum_


def train_seer(path, seed, prefixes):
    """CB_TRAIN_SEER: a seer (struct cbn_seer) from PREFIX.seer, written to PATH as cbdata SEER=FILE reads it."""
    start = time.time()
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    play = np.concatenate([np.fromfile(p + ".seer", dtype=SEER_DT) for p in prefixes])
    print(f"{len(play)} card decisions of the hard search handed the true deal", flush=True)
    net = train_play(play, np.full((len(play), 52), np.nan, dtype=np.float32), rng,
                     int(os.environ.get("CB_PLAY_EPOCHS", "8")), "seer")
    w1 = net.l1.weight.detach().numpy().T
    arrays = [w1[:PLAY_IN], net.l1.bias.detach().numpy(), net.pol.weight.detach().numpy(),
              net.pol.bias.detach().numpy(), net.val.weight.detach().numpy()[0], net.val.bias.detach().numpy(),
              w1[PLAY_IN:]]
    blob = b"".join(np.ascontiguousarray(a, dtype="<f4").tobytes() for a in arrays)
    assert len(blob) == 4 * (SEER_IN * PLAY_HID + PLAY_HID + 52 * PLAY_HID + 52 + PLAY_HID + 1)
    sum_ = fnv(blob, VERSION)
    with open(path, "wb") as f:
        f.write(np.array([VERSION, sum_], dtype="<u4").tobytes() + blob)
    print(f"wrote {path} (checksum 0x{sum_:08x}) in {time.time() - start:.0f} s", flush=True)


def main():
    if os.environ.get("CB_TRAIN_SEER") and len(sys.argv) >= 4:
        torch.set_num_threads(int(os.environ.get("CB_TRAIN_THREADS", "1")))
        train_seer(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
        return
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    start = time.time()
    path, seed, prefixes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    torch.manual_seed(seed)
    torch.set_num_threads(int(os.environ.get("CB_TRAIN_THREADS", "1")))
    rng = np.random.default_rng(seed)
    play, q, field, fq, bid = load(prefixes)
    valued = int((np.isfinite(q).sum(1) > 1).sum())
    print(f"{len(play)} hard card decisions ({valued} with the search's values), {len(field)} of its opponents, "
          f"{len(bid)} hard bids", flush=True)
    epochs = int(os.environ.get("CB_PLAY_EPOCHS", "8"))
    tau = float(os.environ.get("CB_TRAIN_TAU", "0"))
    own = train_play(play, q, rng, epochs, "own", tau)
    fnet = train_play(field, fq, rng, epochs, "field")
    bnet = train_bid(bid, rng, int(os.environ.get("CB_BID_EPOCHS", "30")))
    secs = time.time() - start
    note = (f"{len(play)} card decisions and {len(bid)} bids of the hard seats and {len(field)} card\n"
            f" * decisions of their opponents, seed {seed}, trained in {secs:.0f} s")
    s = write_header(path, own, fnet, bnet, note)
    print(f"wrote {path} (checksum 0x{s:08x}) in {secs:.0f} s", flush=True)


if __name__ == "__main__":
    main()
