package dev.symbiont.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A setting that names one constant of an enum by its name in lower case ({@code -Dsymbiont.cpu.conv=im2col}):
 * case and surrounding blanks are ignored, and any other text is an error that names the setting and lists the choices.
 */
public final class EnumChoice {
    private EnumChoice() {}

    /** How a setting spells {@code value}: its name in lower case. */
    public static String id(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    /**
     * The constant of {@code type} that {@code text} names.
     *
     * @param setting what is being set, for the error (e.g. {@code "-Dsymbiont.cpu.conv"})
     * @throws IllegalArgumentException naming the setting, the text and the accepted spellings
     */
    public static <E extends Enum<E>> E parse(Class<E> type, String text, String setting) {
        String wanted = text.strip().toLowerCase(Locale.ROOT);
        for (E constant : type.getEnumConstants()) {
            if (id(constant).equals(wanted)) return constant;
        }
        String choices = Arrays.stream(type.getEnumConstants()).map(EnumChoice::id).collect(Collectors.joining(", "));
        throw new IllegalArgumentException(setting + " is '" + text + "'; expected one of: " + choices);
    }
}
