package bankbench;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One phase of the open model's arrivals: `rate` iterations per second at random instants for
 * `seconds`. The `phases` property lists them in order, `seconds:rate` each, comma-separated
 * (`30:350,60:1400,60:350`); without it the plan's one rate for `arrivals_s` is the only phase.
 */
record Phase(long seconds, double rate) {

	Phase {
		if (seconds < 1 || !(rate > 0) || Double.isInfinite(rate)) {
			throw new IllegalArgumentException(
					"a phase needs whole seconds >= 1 and a rate > 0 (iterations/s); got " + seconds + ":" + rate);
		}
	}

	/** The phases of a `phases` property, in order; none for a blank one. */
	static List<Phase> parse(String text) {
		List<Phase> phases = new ArrayList<>();
		if (text == null || text.isBlank()) {
			return phases;
		}
		for (String part : text.split(",", -1)) {
			String[] fields = part.trim().split(":", -1);
			try {
				if (fields.length != 2) {
					throw new NumberFormatException();
				}
				phases.add(new Phase(Long.parseLong(fields[0].trim()), Double.parseDouble(fields[1].trim())));
			}
			catch (IllegalArgumentException ex) { // NumberFormatException included
				throw new IllegalArgumentException("phases=" + text + ": each phase is seconds:rate, whole seconds >= 1 "
						+ "and a rate > 0, e.g. 30:350,60:1400", ex);
			}
		}
		return List.copyOf(phases);
	}

	/** The arrivals in words: "50 iterations/s for 10 s", or each phase's. */
	static String describe(List<Phase> phases) {
		if (phases.size() == 1) {
			return trim(phases.get(0).rate()) + " iterations/s for " + phases.get(0).seconds() + " s";
		}
		return "in phases of " + phases.stream()
			.map(phase -> phase.seconds() + " s at " + trim(phase.rate()))
			.collect(Collectors.joining(", ")) + " iterations/s";
	}

	/** How many seconds the arrivals last, all phases together. */
	static long seconds(List<Phase> phases) {
		return phases.stream().mapToLong(Phase::seconds).sum();
	}

	static String trim(double value) {
		return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
	}

}
