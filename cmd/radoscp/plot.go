package main

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotBench draws MiB/s against window, one line per mode, to path (.svg or
// .png by its extension).
func plotBench(path string, rows []benchRow) error {
	p := plot.New()
	p.Title.Text = "radoscp bench"
	p.X.Label.Text = "window (copies in flight)"
	p.Y.Label.Text = "MiB/s"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	colors := map[string]color.Color{"offload": color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, "client": color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}}
	byMode := map[string]plotter.XYs{}
	var order []string
	for _, r := range rows {
		if _, ok := byMode[r.Mode]; !ok {
			order = append(order, r.Mode)
		}
		byMode[r.Mode] = append(byMode[r.Mode], plotter.XY{X: float64(r.Window), Y: r.MiBps})
	}
	for _, mode := range order {
		line, points, err := plotter.NewLinePoints(byMode[mode])
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		line.Color = colors[mode]
		points.Color = colors[mode]
		points.Shape = draw.CircleGlyph{}
		p.Add(line, points)
		p.Legend.Add(mode, line, points)
	}
	if err := p.Save(6*vg.Inch, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}
