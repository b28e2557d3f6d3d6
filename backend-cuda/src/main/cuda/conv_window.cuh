// The window geometry the conv kernels (conv.cu, conv_implicit.cu) take by value.
#pragma once

// One window geometry (ConvGeometry or PoolGeometry as the host fills it): output row oh reads
// input rows oh·strideH − padH + i·dilationH for i in [0, kernelH), columns likewise.
struct Window {
    int batch, channels, inH, inW;
    int kernelH, kernelW, strideH, strideW;
    int padH, padW, dilationH, dilationW;
    int outH, outW;
};
