package lru

import "testing"

// TestBounded: a cache keeps at most its cap of entries and of cost,
// forgetting the least recently used.
func TestBounded(t *testing.T) {
	c := New[string](2, 1000, func(v int) int { return v })
	c.Put("a", 1)
	c.Put("b", 2)
	c.Get("a")
	c.Put("c", 3)
	if _, ok := c.Get("b"); ok || c.Len() != 2 || c.Cost() != 4 {
		t.Fatalf("got b kept or %d entries costing %d; want b forgotten, 2 entries costing 4", c.Len(), c.Cost())
	}
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("a: got %d %v; want 1 true", v, ok)
	}
	// A value put again for its key is counted once, at its new cost.
	c.Put("a", 10)
	if c.Len() != 2 || c.Cost() != 13 {
		t.Fatalf("a put again: got %d entries costing %d; want 2 costing 13", c.Len(), c.Cost())
	}
	c.Remove("c")
	if c.Len() != 1 || c.Cost() != 10 {
		t.Fatalf("c removed: got %d entries costing %d; want 1 costing 10", c.Len(), c.Cost())
	}
	// Over the cost cap the oldest go, whatever their number; the entry
	// put last stays, even alone over the cap.
	c.Put("big", 2000)
	if _, ok := c.Get("a"); ok || c.Len() != 1 || c.Cost() != 2000 {
		t.Fatalf("over the cost cap: got %d entries costing %d; want the new one alone", c.Len(), c.Cost())
	}
}
