package compiler

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
)

func TestZZMem(t *testing.T) {
	roots := strings.Split(os.Getenv("ZZ_ROOTS"), ",")
	c, err := Load(context.Background(), Options{Roots: roots}, Policy{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	f, _ := os.Create("/tmp/heap.prof")
	pprof.WriteHeapProfile(f)
	f.Close()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("heap inuse %d MB, total alloc %d MB", ms.HeapInuse>>20, ms.TotalAlloc>>20)
	runtime.KeepAlive(c)
}
