package dev.symbiont.core.distributed.mpi;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The collective timeout read from {@code -Dsymbiont.distributed.timeout}. */
class MpiTimeoutTest {
    @Test
    void unsetIsFiveMinutesAndADurationIsTakenAsGiven() {
        assertEquals(Duration.ofMinutes(5), MpiCommunicator.timeout(null));
        assertEquals(Duration.ofMinutes(5), MpiCommunicator.timeout(""));
        assertEquals(Duration.ofSeconds(30), MpiCommunicator.timeout("PT30S"));
        assertEquals(Duration.ofMillis(1500), MpiCommunicator.timeout(" PT1.5S "));
    }

    @Test
    void aValueThatIsNotAPositiveDurationIsAnErrorNamingTheProperty() {
        for (String bad : new String[] {"30", "PT0S", "-PT1S", "five minutes"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MpiCommunicator.timeout(bad));
            assertTrue(e.getMessage().startsWith("symbiont.distributed.timeout=" + bad + " is not a positive ISO-8601 duration"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> MpiCommunicator.create(Duration.ZERO));
    }
}
