package dev.symbiont.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class EnumChoiceTest {
    private enum Path { AUTO, FAST_PATH }

    @Test
    void aConstantIsNamedByItsLowerCaseNameInAnyCaseWithBlanksAround() {
        assertEquals(Path.FAST_PATH, EnumChoice.parse(Path.class, " Fast_Path ", "-Dx"));
        assertEquals(Path.AUTO, EnumChoice.parse(Path.class, "auto", "-Dx"));
        assertEquals("fast_path", EnumChoice.id(Path.FAST_PATH));
    }

    @Test
    void anUnknownNameIsAnErrorNamingTheSettingTheTextAndTheChoices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EnumChoice.parse(Path.class, "slow", "-Dsymbiont.path"));
        assertEquals("-Dsymbiont.path is 'slow'; expected one of: auto, fast_path", e.getMessage());
    }
}
