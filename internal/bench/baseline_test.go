package bench

import (
	"testing"

	"github.com/rlmc-dev/rlmc/ir"
)

func TestBaselineFirst(t *testing.T) {
	cat := &ir.Catalog{Units: []*ir.Unit{
		{Name: "holidays", Description: "Historical data", Status: ir.StatusOK},
		{Name: "nager-date", Description: "Public holidays for more than 90 countries", Status: ir.StatusOK},
		{Name: "weather", Description: "Forecasts for any city", Status: ir.StatusOK},
		{Name: "broken", Description: "Public holidays public holidays", Status: ir.StatusInvalid},
	}}
	b := newBaseline(cat)
	for _, tc := range []struct{ name, task, want string }{
		{"rarer words win", "list the public holidays of 2024", "nager-date"},
		{"one word", "the forecast for Paris", "weather"},
		{"no shared word", "book a table", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := b.first(tc.task); got != tc.want {
				t.Errorf("first(%q) = %q; want %q", tc.task, got, tc.want)
			}
		})
	}
}
