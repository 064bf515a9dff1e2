package loader

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

func TestParallelRunsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000} {
		runs := make([]atomic.Int32, n)
		if err := parallel(context.Background(), n, func(i int) { runs[i].Add(1) }); err != nil {
			t.Fatalf("n=%d: got error %v; want nil", n, err)
		}
		for i := range runs {
			if got := runs[i].Load(); got != 1 {
				t.Fatalf("n=%d: index %d ran %d times; want 1", n, i, got)
			}
		}
	}
}

func TestParallelStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	// The calls after the tenth wait for its cancel: otherwise another
	// worker could run every index left between the tenth call's count
	// and its cancel, and nothing would be left undone.
	canceled := make(chan struct{})
	err := parallel(ctx, 1000, func(i int) {
		switch n := ran.Add(1); {
		case n == 10:
			cancel()
			close(canceled)
		case n > 10:
			<-canceled
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got error %v; want context.Canceled", err)
	}
	if got := ran.Load(); got >= 1000 {
		t.Fatalf("ran %d of 1000 after the cancel; want fewer", got)
	}
	// A context done after the last index ran leaves nothing undone.
	ctx, cancel = context.WithCancel(context.Background())
	if err := parallel(ctx, 5, func(i int) {}); err != nil {
		t.Fatalf("got error %v; want nil", err)
	}
	cancel()
}

// A panic on a worker comes back as an error, once every other index
// ran: on the worker's goroutine it would end the process, past any
// recover of the caller's.
func TestParallelReturnsPanic(t *testing.T) {
	var ran atomic.Int32
	err := parallel(context.Background(), 100, func(i int) {
		ran.Add(1)
		if i == 7 {
			panic("boom")
		}
	})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("got error %v; want the panic's value", err)
	}
	if got := ran.Load(); got != 100 {
		t.Fatalf("ran %d of 100 indexes; want every one", got)
	}
}
