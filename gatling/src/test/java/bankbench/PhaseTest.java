package bankbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class PhaseTest {

	@Test
	void readsThePhasesInOrder() {
		List<Phase> phases = Phase.parse("30:350, 60:1400.5,60:350");
		assertEquals(List.of(new Phase(30, 350), new Phase(60, 1400.5), new Phase(60, 350)), phases);
		assertEquals(150, Phase.seconds(phases));
		assertEquals("in phases of 30 s at 350, 60 s at 1400.5, 60 s at 350 iterations/s", Phase.describe(phases));
	}

	@Test
	void noPhasesIsTheOneRateOfThePlan() {
		assertTrue(Phase.parse("").isEmpty());
		assertTrue(Phase.parse(null).isEmpty());
		assertEquals("50 iterations/s for 10 s", Phase.describe(List.of(new Phase(10, 50))));
	}

	@Test
	void refusesWhatIsNotWholeSecondsAndAPositiveRate() {
		for (String bad : List.of("30", "30:350:1", "0:350", "30:0", "30:-1", "1.5:350", "30:fast", "30:350,",
				"30:Infinity")) {
			IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> Phase.parse(bad),
					bad);
			assertTrue(refused.getMessage().startsWith("phases=" + bad + ": each phase is seconds:rate"), bad);
		}
	}

}
