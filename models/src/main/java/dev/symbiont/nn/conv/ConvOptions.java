package dev.symbiont.nn.conv;

/**
 * The settings of a convolution layer besides its channels and kernel, with PyTorch's
 * defaults: stride 1, padding 0, dilation 1, groups 1, bias on. Start from
 * {@link Conv2d#options()} (or {@link Conv1d#options()}) and change what differs:
 * <pre>
 *   new Conv2d(64, 128, 3, Conv2d.options().stride(2).padding(1).bias(false), g)
 *   new Conv2d(96, 96, 7, Conv2d.options().padding(3).groups(96), g)        depthwise
 *   new Conv2d(16, 16, 5, Conv2d.options().padding("same"), g)
 * </pre>
 * The values are checked by the layer, whose message names it and its channels.
 *
 * @param stride   step between output positions, ≥ 1
 * @param padding  zeros added on each side, ≥ 0 (ignored when {@code same})
 * @param same     PyTorch's {@code padding="same"}: the output keeps the input's size (stride 1 only)
 * @param dilation spacing between kernel taps, ≥ 1
 * @param groups   ≥ 1, dividing both channel counts; groups = in = out is a depthwise convolution
 * @param bias     whether the layer has a learned bias
 */
public record ConvOptions(int stride, int padding, boolean same, int dilation, int groups, boolean bias) {
    /** PyTorch's defaults. */
    static final ConvOptions DEFAULTS = new ConvOptions(1, 0, false, 1, 1, true);

    public ConvOptions stride(int s) { return new ConvOptions(s, padding, same, dilation, groups, bias); }

    /** Explicit zero padding on each side (replaces "same"). */
    public ConvOptions padding(int p) { return new ConvOptions(stride, p, false, dilation, groups, bias); }

    /**
     * PyTorch's string padding: "same" (output size = input size, stride 1 only; an odd total
     * goes after, as PyTorch does) or "valid" (no padding).
     */
    public ConvOptions padding(String mode) {
        return switch (mode) {
            case "same" -> new ConvOptions(stride, 0, true, dilation, groups, bias);
            case "valid" -> new ConvOptions(stride, 0, false, dilation, groups, bias);
            default -> throw new IllegalArgumentException("ConvOptions: padding must be 'same', 'valid' or a size, got '" + mode + "'");
        };
    }

    public ConvOptions dilation(int d) { return new ConvOptions(stride, padding, same, d, groups, bias); }

    public ConvOptions groups(int g) { return new ConvOptions(stride, padding, same, dilation, g, bias); }

    public ConvOptions bias(boolean on) { return new ConvOptions(stride, padding, same, dilation, groups, on); }

    /** The padding as PyTorch prints it: a size, or 'same'. */
    String paddingText() { return same ? "'same'" : Integer.toString(padding); }
}
