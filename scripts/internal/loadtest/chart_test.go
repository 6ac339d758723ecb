package loadtest

import (
	"math"
	"strings"
	"testing"
)

func TestNiceCeil(t *testing.T) {
	tests := []struct{ in, want float64 }{{0.3, 0.5}, {1, 1}, {1.1, 2}, {7, 10}, {42, 50}, {0, 1}, {math.NaN(), 1}, {math.Inf(1), 1}}
	for _, tt := range tests {
		if got := NiceCeil(tt.in); got != tt.want {
			t.Errorf("NiceCeil(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestYRange(t *testing.T) {
	frame := Frame{LogFloor: 0.01, NoDataMin: 0.1}
	data := []Series{{Pts: []Pt{{0, 0}, {1, 0.5}, {2, 300}, {3, math.NaN()}}}}
	tests := []struct {
		name   string
		log    bool
		series []Series
		lo, hi float64
	}{
		{"log: zeros and NaN ignored", true, data, -1, 3},
		{"linear: from 0 to a nice max", false, data, 0, 500},
		{"log without data: NoDataMin to 1", true, nil, -1, 0},
		{"linear without data", false, nil, 0, 1},
		{"log of one value spans a decade", true, []Series{{Pts: []Pt{{0, 10}}}}, 1, 2},
	}
	for _, tt := range tests {
		c := Chart{Frame: frame, Log: tt.log, Series: tt.series}
		if lo, hi := c.yRange(); lo != tt.lo || hi != tt.hi {
			t.Errorf("%s: yRange = %v..%v, want %v..%v", tt.name, lo, hi, tt.lo, tt.hi)
		}
	}
}

func TestAxes(t *testing.T) {
	f := Frame{W: 200, H: 100, PadL: 20, PadR: 20}
	tests := []struct {
		name  string
		axis  XAxis
		x     float64
		pos   float64
		ticks []string
	}{
		{"time: 0 at the left", TimeAxis{Max: 10}, 0, 20, []string{"0s", "2s", "4s", "6s", "8s", "10s"}},
		{"time: max at the right", TimeAxis{Max: 10}, 10, 180, nil},
		{"time: no length is one second", TimeAxis{}, 1, 180, []string{"0s", "0.2s", "0.4s", "0.6s", "0.8s", "1s"}},
		{"categories: the first 20 in", CategoryAxis{Values: []float64{1, 8, 64}, Unit: "agents"}, 1, 40, []string{"1 agents", "8 agents", "64 agents"}},
		{"categories: evenly spaced", CategoryAxis{Values: []float64{1, 8, 64}}, 8, 100, nil},
		{"categories: the last 20 in", CategoryAxis{Values: []float64{1, 8, 64}}, 64, 160, nil},
		{"one category in the middle", CategoryAxis{Values: []float64{8}}, 8, 100, nil},
	}
	for _, tt := range tests {
		if got := tt.axis.place(f, tt.x); math.Abs(got-tt.pos) > 1e-9 {
			t.Errorf("%s: place(%v) = %v, want %v", tt.name, tt.x, got, tt.pos)
		}
		if tt.ticks == nil {
			continue
		}
		var got []string
		for _, tk := range tt.axis.ticks() {
			got = append(got, tk.label)
		}
		if strings.Join(got, ",") != strings.Join(tt.ticks, ",") {
			t.Errorf("%s: ticks = %q, want %q", tt.name, got, tt.ticks)
		}
	}
}

// TestSVG: what a chart draws follows its options; text is escaped.
func TestSVG(t *testing.T) {
	base := Chart{Frame: Frame{W: 300, H: 120, PadL: 30, PadR: 10, PadT: 20, PadB: 20, LogFloor: 0.01},
		Title: "lat <ms>", Unit: "ms", X: TimeAxis{Max: 4},
		Series: []Series{{Name: "p50 & co", Color: "#111", Pts: []Pt{{0, 1}, {1, math.NaN()}, {2, 3}, {3, 4}}}}}
	with := func(f func(*Chart)) Chart { c := base; f(&c); return c }
	tests := []struct {
		name      string
		c         Chart
		has, lack []string
	}{
		{"plain", base, []string{"lat &lt;ms&gt; (ms)", `<path d="M30.0 84.0 M160.0 52.0 L225.0 36.0"`},
			[]string{"<circle", "stroke-dasharray", "p50 &amp; co", `class="m"`, `fill="#f3f5f8"`}},
		{"dots", with(func(c *Chart) { c.Dots = true }), []string{`<circle cx="30.0" cy="84.0" r="2.2" fill="#111"/>`}, nil},
		{"dashed", with(func(c *Chart) { c.Series = []Series{{Color: "#111", Dashed: true, Pts: []Pt{{0, 1}}}} }), []string{`stroke-dasharray="5 3"`}, nil},
		{"legend", with(func(c *Chart) { c.Legend = true }), []string{`class="l">p50 &amp; co</text>`}, nil},
		{"marks and bands", with(func(c *Chart) {
			c.Marks = []Marker{{X: 2, Label: "kill<9>", Color: "#c62828"}}
			c.Bands = []Band{{From: 0, To: 2, Label: "idle"}, {From: 2, To: 4, Label: "raw"}}
		}), []string{`class="m" fill="#c62828">kill&lt;9&gt;</text>`, `<rect x="30.0" y="20" width="130.0" height="80" fill="#f3f5f8"/>`, `class="b">raw</text>`}, nil},
	}
	for _, tt := range tests {
		svg := string(tt.c.SVG())
		for _, s := range tt.has {
			if !strings.Contains(svg, s) {
				t.Errorf("%s: SVG lacks %s:\n%s", tt.name, s, svg)
			}
		}
		for _, s := range tt.lack {
			if strings.Contains(svg, s) {
				t.Errorf("%s: SVG has %s:\n%s", tt.name, s, svg)
			}
		}
	}
}

func TestFormatNum(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{{0, "0"}, {250, "250"}, {3, "3"}, {2.5, "2.5"}, {0.05, "0.05"}, {0.001, "0.001"}, {123.4, "123"}}
	for _, tt := range tests {
		if got := FormatNum(tt.in); got != tt.want {
			t.Errorf("FormatNum(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
