// Loaded into a server under a benchmark (`node --import tsx --import …/loop-delay-probe.ts dist/server.js`): on
// SIGUSR2 it writes the event-loop delay since the last signal to stderr as one JSON line, then starts counting anew.
// The delay is how late a timer due every 2 ms fired: the longest time one task held the loop (perf_hooks).
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 2 });
histogram.enable();
const ms = (nanoseconds: number): number => Math.round(nanoseconds / 10_000) / 100;

process.on('SIGUSR2', () => {
  const line = { loop_delay: { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max), samples: histogram.count } };
  process.stderr.write(JSON.stringify(line) + '\n');
  histogram.reset();
});
