package report

import (
	"fmt"
	"path/filepath"
	"strings"
)

// fileKind is the kind of file each format writes, named by the extension
// that holds it; a format agrees with -o's extension when their kinds are
// the same.
var fileKind = map[string]string{
	"table":          "txt",
	"markdown":       "md",
	"md":             "md",
	"csv":            "csv",
	"csv-runs":       "csv",
	"intervals-csv":  "csv",
	"json":           "json",
	"svg":            "svg",
	"png":            "png",
	"timeseries":     "svg",
	"timeseries-png": "png",
	"html":           "html",
}

// extKind maps an output file's extension (lower case, without the dot) to
// its kind, and extFormat a kind to the format written when only the
// extension is given.
var (
	extKind = map[string]string{
		"txt": "txt", "text": "txt", "md": "md", "markdown": "md", "csv": "csv", "json": "json",
		"svg": "svg", "png": "png", "htm": "html", "html": "html",
	}
	extFormat = map[string]string{
		"txt": "table", "md": "markdown", "csv": "csv", "json": "json", "svg": "svg", "png": "png", "html": "html",
	}
)

// OutputFormat is the format a report is written in: format when given
// (it must agree with out's extension, when out has one that names a kind
// of file), else the one out's extension names (.html and .htm: html, .md:
// markdown, .csv, .json, .svg, .png, .txt: table), else table when there
// is no -o or it has no extension. An extension lab does not know without
// -format, or one that names another kind of file than format writes, is
// an error naming the path and the formats.
func OutputFormat(format, out string) (string, error) {
	if format != "" {
		if _, ok := fileKind[format]; !ok {
			return "", fmt.Errorf("unknown report format %q (known: %s)", format, strings.Join(Formats, ", "))
		}
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(out), "."))
	if out == "" || ext == "" {
		if format == "" {
			return "table", nil
		}
		return format, nil
	}
	kind, known := extKind[ext]
	switch {
	case format == "" && known:
		return extFormat[kind], nil
	case format == "":
		return "", fmt.Errorf("-o %s: lab does not know which format a .%s file holds: give -format (%s) or an extension that names one (.txt, .md, .csv, .json, .svg, .png, .html)",
			out, ext, strings.Join(Formats, ", "))
	case known && kind != "txt" && kind != fileKind[format]:
		return "", fmt.Errorf("-o %s: a .%s file does not hold the %s format (it writes a .%s file): drop -format, or name the file for it, or pick a format for .%s (%s)",
			out, ext, format, fileKind[format], ext, strings.Join(formatsOfKind(kind), ", "))
	}
	return format, nil
}

// formatsOfKind lists the formats that write a kind of file.
func formatsOfKind(kind string) []string {
	var out []string
	for _, f := range Formats {
		if fileKind[f] == kind {
			out = append(out, f)
		}
	}
	return out
}

// Binary reports whether a format is binary (it would garble a terminal).
func Binary(format string) bool {
	return fileKind[format] == "png"
}
