package report

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
)

// svgTextTagRE is a text as gonum's vgsvg writes it, before fontFallback.
var svgTextTagRE = regexp.MustCompile(`(<text [^>]*style="font-family:Liberation (Serif|Sans|Mono);[^"]*font-size:([0-9.]+)px")(>([^<]*)</text>)`)

// fixTextLengths gives every text of a gonum SVG the width gonum measured
// it at (textLength, in Liberation's metrics), glyphs and spacing scaled
// to fit: gonum placed each text by that width, and a browser without
// Liberation fonts drew a wider family (DejaVu Serif on Debian) past the
// figure's edge ("mtu=900" for "mtu=9000", "gro × strea", issue 35).
// Where a metric-compatible font is installed it changes nothing.
func fixTextLengths(svg []byte) []byte {
	return svgTextTagRE.ReplaceAllFunc(svg, func(m []byte) []byte {
		sm := svgTextTagRE.FindSubmatch(m)
		txt := html.UnescapeString(string(sm[5]))
		if strings.TrimSpace(txt) == "" {
			return m
		}
		size, err := strconv.ParseFloat(string(sm[3]), 64)
		if err != nil {
			return m
		}
		fnt := plot.DefaultFont
		fnt.Variant = font.Variant(sm[2])
		face := font.DefaultCache.Lookup(fnt, font.Length(size))
		w := face.Width(txt)
		return fmt.Appendf(nil, `%s textLength="%.5g" lengthAdjust="spacingAndGlyphs"%s`, sm[1], float64(w), sm[4])
	})
}
