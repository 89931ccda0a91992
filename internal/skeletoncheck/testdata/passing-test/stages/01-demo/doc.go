// Package demo is a fixture stage suite.
package demo
