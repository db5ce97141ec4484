// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// A harness for go-nmea (github.com/adrianmo/go-nmea, Debian's golang-github-adrianmo-go-nmea-dev):
// reads an NMEA log from standard input line by line, parses every line into go-nmea's typed
// sentence with nmea.Parse (which also checks the checksum), reads a field of each typed value so
// that nothing can be optimised away, and prints the counts.
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"

	nmea "github.com/adrianmo/go-nmea"
)

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	counts := map[string]int{}
	sentences, rejected, satellites := 0, 0, 0
	var latitudes float64
	for scanner.Scan() {
		line := strings.TrimRight(scanner.Text(), "\r")
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		sentence, err := nmea.Parse(line)
		if err != nil {
			rejected++
			continue
		}
		sentences++
		counts[sentence.DataType()]++
		switch s := sentence.(type) {
		case nmea.RMC:
			latitudes += s.Latitude
		case nmea.GGA:
			latitudes += s.Latitude
		case nmea.GLL:
			latitudes += s.Latitude
		case nmea.GSA:
			satellites += len(s.SV)
		case nmea.GSV:
			satellites += len(s.Info)
		}
	}
	if err := scanner.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "go-nmea harness:", err)
		os.Exit(1)
	}
	types := make([]string, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	sort.Strings(types)
	parts := make([]string, 0, len(types))
	for _, t := range types {
		parts = append(parts, fmt.Sprintf("%s=%d", t, counts[t]))
	}
	fmt.Printf("go-nmea sentences=%d rejected=%d satellites=%d latitude-sum=%.3f %s\n",
		sentences, rejected, satellites, latitudes, strings.Join(parts, " "))
}
