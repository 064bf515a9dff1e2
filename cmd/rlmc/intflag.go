package main

import (
	"strconv"

	"github.com/spf13/pflag"
)

// intFlag is a whole-number flag read in decimal. pflag's IntVar reads
// its value as Go source would: --budget 010 was a budget of 8, 0x64 of
// 100 and 1_000 of 1000, none of them what a user typing a budget means.
// A value that is not decimal digits (with an optional sign) gets
// strconv's error, which flagError says as "want a whole number".
type intFlag[T int | int64] struct{ p *T }

// intVar defines a whole-number flag read in decimal (see intFlag).
func intVar[T int | int64](fl *pflag.FlagSet, p *T, name string, value T, usage string) {
	*p = value
	fl.Var(intFlag[T]{p}, name, usage)
}

func (f intFlag[T]) String() string { return strconv.FormatInt(int64(*f.p), 10) }

func (f intFlag[T]) Set(s string) error {
	bits := 64
	if _, ok := any(*f.p).(int); ok {
		bits = strconv.IntSize
	}
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return err
	}
	*f.p = T(n)
	return nil
}

// Type names the value in usage lines, as pflag's int flags do.
func (f intFlag[T]) Type() string {
	if _, ok := any(*f.p).(int); ok {
		return "int"
	}
	return "int64"
}
