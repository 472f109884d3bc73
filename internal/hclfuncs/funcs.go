// Package hclfuncs holds the functions a lab's expressions may call:
// env(), file() (a regular UTF-8 file of bounded size, refused without
// being read when it is a FIFO or a device), and go-cty's standard library
// under Terraform's names. spec hands the table to every evaluation.
package hclfuncs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// Table returns the functions expressions may call: env, reading env
// (os.Environ()-style strings, the last one of a name wins); file,
// reading paths relative to dir, files of at most maxBytes; and the go-cty
// standard library under Terraform's names.
func Table(dir string, env []string, maxBytes int64) map[string]function.Function {
	return map[string]function.Function{
		"env":  envFunc(envMap(env)),
		"file": fileFunc(dir, maxBytes),

		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
		"log": stdlib.LogFunc, "max": stdlib.MaxFunc, "min": stdlib.MinFunc,
		"parseint": stdlib.ParseIntFunc, "pow": stdlib.PowFunc, "signum": stdlib.SignumFunc,
		"int": stdlib.IntFunc,

		"chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
		"indent": stdlib.IndentFunc, "join": stdlib.JoinFunc, "lower": stdlib.LowerFunc,
		"regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc, "replace": stdlib.ReplaceFunc,
		"split": stdlib.SplitFunc, "strlen": stdlib.StrlenFunc, "strrev": stdlib.ReverseFunc,
		"substr": stdlib.SubstrFunc, "title": stdlib.TitleFunc, "trim": stdlib.TrimFunc,
		"trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
		"trimspace": stdlib.TrimSpaceFunc, "upper": stdlib.UpperFunc,

		"chunklist": stdlib.ChunklistFunc, "coalesce": stdlib.CoalesceFunc,
		"coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc,
		"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc,
		"element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc, "index": stdlib.IndexFunc,
		"keys": stdlib.KeysFunc, "length": stdlib.LengthFunc, "lookup": stdlib.LookupFunc,
		"merge": stdlib.MergeFunc, "reverse": stdlib.ReverseListFunc, "slice": stdlib.SliceFunc,
		"sort": stdlib.SortFunc, "values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
		"range":    stdlib.RangeFunc, // capped at 1024 values by go-cty
		"setunion": stdlib.SetUnionFunc, "setintersection": stdlib.SetIntersectionFunc,

		"jsonencode": stdlib.JSONEncodeFunc, "jsondecode": stdlib.JSONDecodeFunc,
		"csvdecode": stdlib.CSVDecodeFunc,
		"tostring":  stdlib.MakeToFunc(cty.String), "tonumber": stdlib.MakeToFunc(cty.Number),
		"tobool": stdlib.MakeToFunc(cty.Bool),
	}
}

// envMap turns os.Environ()-style strings into a map (the last one wins).
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// envFunc is env(name): the value of an environment variable from env
// (spec's Options.Env), "" when unset.
func envFunc(env map[string]string) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "name", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return cty.StringVal(env[args[0].AsString()]), nil
		},
	})
}

// fileFunc is file(path): the contents of a regular UTF-8 file of at most
// maxBytes (spec's 1 MiB), relative to the lab directory.
func fileFunc(dir string, maxBytes int64) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "path", Type: cty.String}},
		Type:   function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			s, err := readSmallFile(p, maxBytes)
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(s), nil
		},
	})
}

// readSmallFile reads file()'s argument: a regular UTF-8 file of at most
// maxBytes bytes. A FIFO or device is refused without being read.
func readSmallFile(p string, maxBytes int64) (string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", p)
	}
	if fi.Size() > maxBytes {
		return "", fmt.Errorf("%s is larger than %d bytes", p, maxBytes)
	}
	// O_NONBLOCK: a FIFO swapped in after the Stat does not block the open.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose on close
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return "", err
	}
	if int64(len(b)) > maxBytes {
		return "", fmt.Errorf("%s is larger than %d bytes", p, maxBytes)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s is not valid UTF-8", p)
	}
	return string(b), nil
}
