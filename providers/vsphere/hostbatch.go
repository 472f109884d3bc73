package vsphere

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/lab-bench/lab/machine"
)

// Host batches. Each own-switch link is a vSwitch and a port group on the
// pinned host plus an entry in that host's switch record, which is
// rewritten whole under the switch lock (lockSwitches): made one link at a
// time, N pairs cost N lock round trips and N host network changes in a
// row. Instead, the links asked for on one host while an earlier batch for
// it is under way wait and go together as the next batch (a group
// commit): one lock, one record write and one host network change
// (HostNetworkSystem.UpdateNetworkConfig) for all of them. A link asked
// for when nothing is under way starts at once, alone, so one pair pays
// no wait.

// netOp is one change waiting in a batch: an own-switch link made or
// removed on a host, or (with no fields but err) a link's clean-up of
// unused custom attribute definitions (dropDefinitions).
type netOp struct {
	ctx  context.Context
	done chan struct{} // closed when the batch has set err and recorded

	sw, pg string        // the link's vSwitch and port group
	mtu    int           // (making) the vSwitch's MTU
	owner  machine.Owner // the link's owner
	holder string        // owner.Tag(the link's address)

	err error // the op's outcome
	// recorded (making): the host's record gives the switch to this link,
	// so what Link returns names something to delete even on an error.
	recorded bool
}

// netQueue is one key's waiting ops (a host and a kind: making or
// removing links).
type netQueue struct {
	ops     []*netOp
	running bool
}

// hostBatches holds the queues of a provider, by key.
type hostBatches struct {
	mu     sync.Mutex
	queues map[string]*netQueue
}

// do queues op under key and returns once a batch has run it. The first op
// of an idle key starts a drain that runs batches until the key's queue is
// empty; run gets each batch with a context that ends when every one of
// its ops' contexts has ended (one caller giving up does not cut short
// the others' changes; it waits for its batch, a few calls, to finish).
func (b *hostBatches) do(ctx context.Context, key string, op *netOp, run func(context.Context, []*netOp)) {
	op.ctx, op.done = ctx, make(chan struct{})
	b.mu.Lock()
	if b.queues == nil {
		b.queues = map[string]*netQueue{}
	}
	q := b.queues[key]
	if q == nil {
		q = &netQueue{}
		b.queues[key] = q
	}
	q.ops = append(q.ops, op)
	if !q.running {
		q.running = true
		go b.drain(q, run)
	}
	b.mu.Unlock()
	<-op.done
}

func (b *hostBatches) drain(q *netQueue, run func(context.Context, []*netOp)) {
	for {
		b.mu.Lock()
		ops := q.ops
		q.ops = nil
		if len(ops) == 0 {
			q.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		ctx, stop := batchContext(ops)
		run(ctx, ops)
		stop()
		for _, op := range ops {
			close(op.done)
		}
	}
}

// batchContext is a context that ends when all of ops' contexts have.
func batchContext(ops []*netOp) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ops[0].ctx))
	var left atomic.Int32
	left.Store(int32(len(ops)))
	stops := make([]func() bool, len(ops))
	for i, op := range ops {
		stops[i] = context.AfterFunc(op.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, s := range stops {
			s()
		}
		cancel()
	}
}
