package main

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotSpeedup draws speed-up over window 1 against window, one line per
// regime (run result), with --window auto as a marker at the widest
// window it reached; to path (.svg or .png by its extension). A result
// without window 1 has nothing to draw.
func plotSpeedup(path string, results []benchResult) error {
	p := plot.New()
	p.Title.Text = "radoscp: speed-up over one copy-from at a time"
	p.X.Label.Text = "window (copy-froms in flight)"
	p.Y.Label.Text = "speed-up over window 1"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.Left = true
	for i, res := range results {
		if res.SpeedUpOver != "offload:1" {
			continue
		}
		name := res.Scenario
		if name == "" {
			name = fmt.Sprintf("%d x %s", res.Objects, mib(res.ObjectSize))
		}
		var line plotter.XYs
		var auto plotter.XYs
		for _, r := range res.Rows {
			switch r.Mode {
			case "offload":
				line = append(line, plotter.XY{X: float64(r.Window), Y: r.SpeedUp})
			case "auto":
				auto = append(auto, plotter.XY{X: float64(max(r.WindowReached, 1)), Y: r.SpeedUp})
			}
		}
		c := plotutil.Color(i)
		if len(line) > 0 {
			l, pts, err := plotter.NewLinePoints(line)
			if err != nil {
				return fmt.Errorf("plot: %w", err)
			}
			l.Color, pts.Color, pts.Shape = c, c, draw.CircleGlyph{}
			p.Add(l, pts)
			p.Legend.Add(name, l, pts)
		}
		if len(auto) > 0 {
			s, err := plotter.NewScatter(auto)
			if err != nil {
				return fmt.Errorf("plot: %w", err)
			}
			s.Color, s.Shape, s.Radius = c, draw.CrossGlyph{}, vg.Points(5)
			p.Add(s)
			p.Legend.Add(name+" auto (at widest reached)", s)
		}
	}
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.Color, one.Dashes = color.Gray{Y: 0x80}, []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(one)
	if err := p.Save(7*vg.Inch, 4.5*vg.Inch, path); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}
