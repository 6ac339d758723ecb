package loadtest

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"
)

// Pt is one point of a series; a NaN Y breaks the line.
type Pt struct{ X, Y float64 }

// Series is one line of a chart.
type Series struct {
	Name   string
	Color  string
	Dashed bool
	Pts    []Pt
}

// Marker is a vertical dashed line at X with a label (a fault, a
// recovery).
type Marker struct {
	X     float64
	Label string
	Color string
}

// Band is a labelled stretch of X, shaded every other one (a phase).
type Band struct {
	From, To float64
	Label    string
}

// Frame is a chart's size, in SVG units, and the floor of its log axis.
type Frame struct {
	W, H                   int
	PadL, PadR, PadT, PadB int
	// LogFloor is the smallest value a log axis shows; NoDataMin the
	// bottom of a chart with no data (on a log axis, raised to
	// LogFloor).
	LogFloor, NoDataMin float64
}

func (f Frame) plot() (w, h int) { return f.W - f.PadL - f.PadR, f.H - f.PadT - f.PadB }

// An XAxis places x values across the plot and names the ticks under it.
type XAxis interface {
	place(f Frame, x float64) float64
	ticks() []tick
}

type tick struct {
	x     float64
	label string
}

// TimeAxis is seconds from 0 to Max, ticked every 1, 2 or 5 times a
// power of ten seconds.
type TimeAxis struct{ Max float64 }

func (a TimeAxis) max() float64 {
	if a.Max <= 0 {
		return 1
	}
	return a.Max
}

func (a TimeAxis) place(f Frame, x float64) float64 {
	w, _ := f.plot()
	return float64(f.PadL) + x/a.max()*float64(w)
}

func (a TimeAxis) ticks() []tick {
	var out []tick
	step := NiceCeil(a.max() / 8)
	for x := 0.0; x <= a.max()+1e-9; x += step {
		out = append(out, tick{x, FormatNum(x) + "s"})
	}
	return out
}

// CategoryAxis is the Values, in order, evenly spaced, each ticked with
// its number and Unit.
type CategoryAxis struct {
	Values []float64
	Unit   string
}

func (a CategoryAxis) place(f Frame, x float64) float64 {
	w, _ := f.plot()
	n := max(len(a.Values), 1)
	if n == 1 {
		return float64(f.PadL + w/2)
	}
	i := slices.Index(a.Values, x)
	return float64(f.PadL+20) + float64(i)/float64(n-1)*float64(w-40)
}

func (a CategoryAxis) ticks() []tick {
	out := make([]tick, 0, len(a.Values))
	for _, x := range a.Values {
		out = append(out, tick{x, FormatNum(x) + " " + a.Unit})
	}
	return out
}

// Chart is an SVG line chart.
type Chart struct {
	Frame       Frame
	Title, Unit string
	Log         bool // log10 y axis
	X           XAxis
	Series      []Series
	Marks       []Marker
	Bands       []Band
	Dots        bool // a dot on every point
	Legend      bool // the series' names above the plot
}

// NiceCeil rounds v up to 1, 2 or 5 times a power of ten.
func NiceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// yRange is the chart's y extent: [0, nice max] or, on a log axis, whole
// decades around the data.
func (c Chart) yRange() (lo, hi float64) {
	maxY, minY := math.Inf(-1), math.Inf(1)
	for _, s := range c.Series {
		for _, p := range s.Pts {
			if math.IsNaN(p.Y) || c.Log && p.Y <= 0 {
				continue
			}
			maxY, minY = max(maxY, p.Y), min(minY, p.Y)
		}
	}
	if math.IsInf(maxY, -1) {
		maxY, minY = 1, c.Frame.NoDataMin
	}
	if !c.Log {
		return 0, NiceCeil(maxY)
	}
	lo = math.Floor(math.Log10(max(minY, c.Frame.LogFloor)))
	hi = math.Ceil(math.Log10(max(maxY, c.Frame.LogFloor)))
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// SVG draws the chart.
func (c Chart) SVG() template.HTML {
	var b strings.Builder
	f := c.Frame
	plotW, plotH := f.plot()
	lo, hi := c.yRange()
	sx := func(x float64) float64 { return c.X.place(f, x) }
	sy := func(y float64) float64 {
		if c.Log {
			y = math.Log10(max(y, f.LogFloor))
		}
		return float64(f.PadT+plotH) - (y-lo)/(hi-lo)*float64(plotH)
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		f.W, f.H, f.W, f.H, template.HTMLEscapeString(c.Title))
	fmt.Fprintf(&b, `<text x="%d" y="14" class="t">%s</text>`, f.PadL, template.HTMLEscapeString(c.Title+" ("+c.Unit+")"))
	// Band labels stack downwards where bands are too short for them.
	bxs, btexts := make([]float64, len(c.Bands)), make([]string, len(c.Bands))
	for i, bd := range c.Bands {
		bxs[i], btexts[i] = sx(bd.From)+2, bd.Label
	}
	brows := labelRows(bxs, btexts, 4)
	for i, bd := range c.Bands {
		if i%2 == 0 {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#f3f5f8"/>`, sx(bd.From), f.PadT, max(sx(bd.To)-sx(bd.From), 0), plotH)
		}
	}
	for i, bd := range c.Bands {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="b">%s</text>`, bxs[i], f.PadT+10+brows[i]*labelRowH, template.HTMLEscapeString(bd.Label))
	}
	// y grid and labels
	if c.Log {
		for d := lo; d <= hi; d++ {
			y := float64(f.PadT+plotH) - (d-lo)/(hi-lo)*float64(plotH)
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="g"/><text x="%d" y="%.1f" class="y">%s</text>`,
				f.PadL, f.PadL+plotW, y, y, f.PadL-4, y+4, FormatNum(math.Pow(10, d)))
		}
	} else {
		for i := 0; i <= 4; i++ {
			v := hi * float64(i) / 4
			y := sy(v)
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="g"/><text x="%d" y="%.1f" class="y">%s</text>`,
				f.PadL, f.PadL+plotW, y, y, f.PadL-4, y+4, FormatNum(v))
		}
	}
	for _, t := range c.X.ticks() {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="x">%s</text>`, sx(t.x), f.H-f.PadB+18, template.HTMLEscapeString(t.label))
	}
	// Labels of markers close together stack in rows instead of
	// overwriting each other.
	xs, texts := make([]float64, len(c.Marks)), make([]string, len(c.Marks))
	for i, m := range c.Marks {
		xs[i], texts[i] = sx(m.X)+2, m.Label
	}
	rows := labelRows(xs, texts, plotH/labelRowH-1)
	for i, m := range c.Marks {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-dasharray="4 3"/><text x="%.1f" y="%d" class="m" fill="%s">%s</text>`,
			sx(m.X), sx(m.X), f.PadT, f.PadT+plotH, m.Color, xs[i], f.PadT+plotH-4-rows[i]*labelRowH, m.Color, template.HTMLEscapeString(m.Label))
	}
	for _, s := range c.Series {
		var d strings.Builder
		pen := false
		for _, p := range s.Pts {
			// A log axis has no zero: a zero breaks the line like a gap.
			if math.IsNaN(p.Y) || c.Log && p.Y <= 0 {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", cmd, sx(p.X), sy(p.Y))
			if c.Dots {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.2" fill="%s"/>`, sx(p.X), sy(p.Y), s.Color)
			}
			pen = true
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`, strings.TrimSpace(d.String()), s.Color, dash)
	}
	if c.Legend {
		x := float64(f.PadL)
		for _, s := range c.Series {
			fmt.Fprintf(&b, `<rect x="%.0f" y="21" width="10" height="10" fill="%s"/><text x="%.0f" y="30" class="l">%s</text>`,
				x, s.Color, x+13, template.HTMLEscapeString(s.Name))
			x += 20 + 6.5*float64(len(s.Name))
		}
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/></svg>`, f.PadL, f.PadT, plotW, plotH)
	return template.HTML(b.String()) //nolint:gosec // built from numbers and escaped text
}

// FormatNum writes an axis number: whole numbers and large ones without
// decimals, others with one, small ones with two significant digits.
func FormatNum(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2g", v)
}
