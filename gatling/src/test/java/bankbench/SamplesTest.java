package bankbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SamplesTest {

	@Test
	void writesJMeterColumnsOneRowPerRequest(@TempDir Path dir) throws IOException {
		Path file = dir.resolve("nested/samples.csv");
		Samples samples = new Samples(file);
		samples.add(1795674664350L, 12, BankSimulation.CREATE, 200, null, "arrivals-", 2, true);
		samples.add(1795674664351L, 3, BankSimulation.TRANSACTION, 422, null, "warmup-", 7, true);
		samples.add(1795674664352L, 5003, BankSimulation.BALANCE, -1,
				"Non HTTP response code: a, \"quoted\" exception", "arrivals-", 3, false);
		samples.close();
		samples.add(1795674664353L, 1, BankSimulation.BALANCE, 200, null, "arrivals-", 4, true);
		samples.close();

		List<String> lines = Files.readAllLines(file);
		assertEquals(List.of("timeStamp,elapsed,label,responseCode,threadName,success",
				"1795674664350,12,create client,200,arrivals-2,true",
				"1795674664351,3,transaction,422,warmup-7,true",
				"1795674664352,5003,balance,\"Non HTTP response code: a, \"\"quoted\"\" exception\",arrivals-3,false"),
				lines);
	}

	@Test
	void hotPickDrawsTwoDifferentAccountsAndAnAmountAsThePlan() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		int k = 4;
		int[] seenFrom = new int[k + 1];
		int[] seenTo = new int[k + 1];
		for (int i = 0; i < 20_000; i++) {
			int[] pick = BankSimulation.hotPick(k, random);
			assertTrue(pick[0] >= 1 && pick[0] <= k, "from " + pick[0]);
			assertTrue(pick[1] >= 1 && pick[1] <= k, "to " + pick[1]);
			assertNotEquals(pick[0], pick[1]);
			assertTrue(pick[2] >= 1 && pick[2] <= 100, "amount " + pick[2]);
			seenFrom[pick[0]]++;
			seenTo[pick[1]]++;
		}
		for (int account = 1; account <= k; account++) {
			assertTrue(seenFrom[account] > 4_000 && seenTo[account] > 4_000, "account " + account + " drawn evenly");
		}
	}

}
