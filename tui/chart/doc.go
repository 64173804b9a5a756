// Package chart draws dpscope's charts on ntcharts' line chart canvas: line
// series with bounded history, horizontal reference lines, vertical markers
// where a live change took effect, and coloured scatter groups.
//
// A chart renders to a string only in Draw, which the panes call at a
// bounded frame rate; View returns the last drawing and costs nothing, so the
// screen can be redrawn as often as Bubble Tea likes.
package chart
