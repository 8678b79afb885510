"""The op types that have a gradient decision (a gradient or `no_gradient`) in TensorFlow
2.21's registry: `tf.RegisterGradient`/`tf.no_gradient` refuse them with TensorFlow's KeyError.
Generated from `tensorflow.python.framework.ops._gradient_registry.list()`."""

TENSORFLOW_GRADIENT_OPS = frozenset(
    """
    Abs AccumulateNV2 Acos Acosh Add AddN AddV2 AllToAll Angle ApproxTopK ApproximateEqual ArgMax
    ArgMin AsString Asin Asinh Assert Assign AssignAdd AssignSub Atan Atan2 Atanh AudioMicrofrontend
    AudioSummary AudioSummaryV2 AvgPool AvgPool3D AvgPool3DGrad AvgPoolGrad BandedTriangularSolve
    BatchMatMul BatchMatMulV2 BatchMatMulV3 BatchNormWithGlobalNormalization BatchToSpace
    BatchToSpaceND BesselI0 BesselI0e BesselI1 BesselI1e BesselJ0 BesselJ1 BesselK0 BesselK0e
    BesselK1 BesselK1e BesselY0 BesselY1 Betainc BiasAdd BiasAddGrad BiasAddV1 BitwiseAnd BitwiseOr
    BitwiseXor BlockLSTM BlockLSTMV2 BroadcastGradientArgs BroadcastTo CSRSparseMatrixToDense
    CSRSparseMatrixToSparseTensor CTCBeamSearchDecoder CTCGreedyDecoder CTCLoss CTCLossV2 Case Cast
    Ceil CheckNumerics CheckNumericsV2 Cholesky ClipByValue CollectivePermute Complex ComplexAbs
    CompositeTensorVariantFromComponents CompositeTensorVariantToComponents Concat ConcatOffset
    ConcatV2 Conj ConjugateTranspose Const Conv2D Conv2DBackpropFilter Conv2DBackpropInput Conv3D
    Conv3DBackpropFilterV2 Conv3DBackpropInputV2 CopyToMesh CopyToMeshGrad Cos Cosh CropAndResize
    Cross CrossReplicaSum CudnnRNN CudnnRNNV2 CudnnRNNV3 Cumprod Cumsum CumulativeLogsumexp Dawsn
    DebugGradientIdentity DebugGradientRefIdentity DebugIdentityV2 DecodeBase64 DecodePaddedRaw
    DecodeProtoV2 DecodeRaw DeleteSessionTensor DenseToCSRSparseMatrix DenseToDenseSetOperation
    DenseToSparseSetOperation DepthToSpace DepthwiseConv2dNative DepthwiseConv2dNativeBackpropFilter
    DepthwiseConv2dNativeBackpropInput Diag DiagPart Digamma Dilation2D Div DivNoNan
    DrawBoundingBoxes DynamicPartition DynamicStitch EagerPyFunc EditDistance Eig Einsum Elu EluGrad
    EncodeBase64 EncodeProto EnsureShape Enter Equal Erf Erfc Erfinv EuclideanNorm Exit Exp
    ExpandDims Expint Expm1 ExtractGlimpse ExtractImagePatches ExtractVolumePatches FFT FFT2D FFT3D
    FakeQuantWithMinMaxArgs FakeQuantWithMinMaxArgsGradient FakeQuantWithMinMaxVars
    FakeQuantWithMinMaxVarsGradient FakeQuantWithMinMaxVarsPerChannel
    FakeQuantWithMinMaxVarsPerChannelGradient Fill FixedLengthRecordReader Floor FloorDiv FloorMod
    FractionalAvgPool FractionalMaxPool FresnelCos FresnelSin FusedBatchNorm FusedBatchNormGrad
    FusedBatchNormGradV2 FusedBatchNormGradV3 FusedBatchNormV2 FusedBatchNormV3 Gather GatherNd
    GatherV2 GenerateBoundingBoxProposals GenerateVocabRemapping GetSessionHandle GetSessionHandleV2
    GetSessionTensor Greater GreaterEqual HSVToRGB HashTable HashTableV2 HistogramSummary IFFT
    IFFT2D IFFT3D IRFFT IRFFT2D Identity IdentityN IdentityReader If Igamma Igammac Imag
    ImageProjectiveTransformV2 ImageProjectiveTransformV3 ImageSummary InitializeTable
    InitializeTableFromTextFile InitializeTableFromTextFileV2 InitializeTableV2 Inv InvGrad Invert
    InvertPermutation IsotonicRegression L2Loss LMDBReader LRN LeakyRelu LeakyReluGrad LeftShift
    Less LessEqual Lgamma LinSpace LoadAndRemapMatrix Log Log1p LogMatrixDeterminant LogSoftmax
    LogicalAnd LogicalNot LogicalOr LookupTableFind LookupTableFindV2 LookupTableInsert
    LookupTableInsertV2 LookupTableSize LookupTableSizeV2 LoopCond MatMul MatrixBandPart
    MatrixDeterminant MatrixDiag MatrixDiagPart MatrixDiagPartV2 MatrixDiagPartV3 MatrixDiagV2
    MatrixDiagV3 MatrixInverse MatrixSetDiag MatrixSetDiagV2 MatrixSetDiagV3 MatrixSolve
    MatrixSolveLs MatrixSquareRoot MatrixTriangularSolve Max MaxPool MaxPool3D MaxPool3DGrad
    MaxPool3DGradGrad MaxPoolGrad MaxPoolGradGrad MaxPoolGradV2 MaxPoolV2 MaxPoolWithArgmax Maximum
    Mean Merge MergeSummary Min Minimum MirrorPad MirrorPadGrad Mul MulNoNan Multinomial
    MutableDenseHashTable MutableDenseHashTableV2 MutableHashTable MutableHashTableOfTensors
    MutableHashTableOfTensorsV2 MutableHashTableV2 NcclAllReduce NcclBroadcast NcclReduce Ndtri Neg
    NextAfter NextIteration NonMaxSuppression NonMaxSuppressionV2 NonMaxSuppressionWithOverlaps
    NotEqual NthElement OneHot OnesLike OptionalFromValue OptionalGetValue Pack Pad PadV2
    ParallelDynamicStitch ParameterizedTruncatedNormal ParseTensor PlaceholderWithDefault Polygamma
    PopulationCount Pow PreventGradient Print Prod PyFunc PyFuncStateless Qr QuantizeAndDequantize
    QuantizeAndDequantizeV2 QuantizeAndDequantizeV3 QuantizeAndDequantizeV4
    QuantizeAndDequantizeV4Grad Queue QueueClose QueueDequeue QueueDequeueMany QueueDequeueUpTo
    QueueEnqueue QueueEnqueueMany QueueSize RFFT RFFT2D RGBToHSV RaggedFillEmptyRows RaggedGather
    RaggedRange RaggedTensorFromVariant RaggedTensorToSparse RaggedTensorToTensor
    RaggedTensorToVariant RandomCrop RandomGamma RandomIndexShuffle RandomShuffle
    RandomStandardNormal RandomUniform Range Rank ReadVariableOp ReaderNumRecordsProduced
    ReaderNumWorkUnitsCompleted ReaderRead ReaderReadUpTo ReaderReset ReaderRestoreState
    ReaderSerializeState Real RealDiv Reciprocal ReciprocalGrad ReduceDataset ReduceJoin RefEnter
    RefExit RefIdentity RefMerge RefNextIteration RefSwitch RegexReplace Relayout RelayoutLike Relu
    Relu6 Relu6Grad ReluGrad Reshape ResizeBicubic ResizeBilinear ResizeBilinearGrad
    ResizeNearestNeighbor ResourceGather ResourceGatherNd Reverse ReverseSequence ReverseV2
    RightShift Rint Roll Round Rsqrt RsqrtGrad SampleDistortedBoundingBox
    SampleDistortedBoundingBoxV2 ScalarSummary ScaleAndTranslate ScatterAdd ScatterDiv ScatterMul
    ScatterNd ScatterNdAdd ScatterNdDiv ScatterNdMul ScatterNdNonAliasingAdd ScatterNdSub
    ScatterNdUpdate ScatterSub SdcaFprint SdcaOptimizer SdcaOptimizerV2 SdcaShrinkL1 SegmentMax
    SegmentMean SegmentMin SegmentProd SegmentSum Select SelectV2 SelfAdjointEigV2 Selu SeluGrad
    SerializeTensor SetSize Shape ShapeN Sigmoid SigmoidGrad Sign Sin Sinh Size Slice Softmax
    SoftmaxCrossEntropyWithLogits Softplus SoftplusGrad Softsign SpaceToBatch SpaceToBatchND
    SpaceToDepth SparseAdd SparseAddGrad SparseConcat SparseDenseCwiseAdd SparseDenseCwiseDiv
    SparseDenseCwiseMul SparseFillEmptyRows SparseMatMul SparseMatrixAdd SparseMatrixMatMul
    SparseMatrixMul SparseMatrixNNZ SparseMatrixSoftmax SparseMatrixSparseMatMul
    SparseMatrixTranspose SparseMatrixZeros SparseReduceSum SparseReorder SparseSegmentMean
    SparseSegmentMeanWithNumSegments SparseSegmentSqrtN SparseSegmentSqrtNWithNumSegments
    SparseSegmentSum SparseSegmentSumWithNumSegments SparseSlice SparseSoftmax
    SparseSoftmaxCrossEntropyWithLogits SparseSparseMaximum SparseSparseMinimum SparseTensorDenseAdd
    SparseTensorDenseMatMul SparseTensorToCSRSparseMatrix SparseToDense SparseToSparseSetOperation
    Spence Split SplitV Sqrt SqrtGrad Square SquaredDifference Squeeze Stack StackClose StackPop
    StackPush StatelessCase StatelessIf StatelessMultinomial StatelessParameterizedTruncatedNormal
    StatelessRandomBinomial StatelessRandomGammaV2 StatelessRandomGammaV3 StatelessRandomNormal
    StatelessRandomNormalV2 StatelessRandomPoisson StatelessRandomShuffle StatelessRandomUniform
    StatelessRandomUniformFullInt StatelessRandomUniformFullIntV2 StatelessRandomUniformInt
    StatelessRandomUniformIntV2 StatelessRandomUniformV2 StatelessTruncatedNormal
    StatelessTruncatedNormalV2 StatelessWhile StopGradient StridedSlice StridedSliceGrad StringJoin
    StringSplit StringToHashBucket StringToHashBucketFast StringToHashBucketStrong StringToNumber
    Sub Sum Svd Switch TFRecordReader TPUEmbeddingActivations TPUReplicatedInput Tan Tanh TanhGrad
    TensorArray TensorArrayClose TensorArrayCloseV2 TensorArrayCloseV3 TensorArrayConcat
    TensorArrayConcatV2 TensorArrayConcatV3 TensorArrayGather TensorArrayGatherV2
    TensorArrayGatherV3 TensorArrayGrad TensorArrayGradV2 TensorArrayGradV3 TensorArrayGradWithShape
    TensorArrayRead TensorArrayReadV2 TensorArrayReadV3 TensorArrayScatter TensorArrayScatterV2
    TensorArrayScatterV3 TensorArraySize TensorArraySizeV2 TensorArraySizeV3 TensorArraySplit
    TensorArraySplitV2 TensorArraySplitV3 TensorArrayV2 TensorArrayV3 TensorArrayWrite
    TensorArrayWriteV2 TensorArrayWriteV3 TensorListConcat TensorListConcatLists TensorListConcatV2
    TensorListElementShape TensorListFromTensor TensorListGather TensorListGetItem TensorListLength
    TensorListPopBack TensorListPushBack TensorListPushBackBatch TensorListResize TensorListScatter
    TensorListScatterIntoExistingList TensorListScatterV2 TensorListSetItem TensorListSplit
    TensorListStack TensorScatterAdd TensorScatterMax TensorScatterMin TensorScatterSub
    TensorScatterUpdate TensorStridedSliceUpdate TensorSummary TensorSummaryV2 TextLineReader Tile
    Timestamp TopK TopKV2 Transpose TridiagonalMatMul TridiagonalSolve TruncateDiv TruncatedNormal
    Unpack UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd UnsortedSegmentSum
    VarIsInitializedOp VariableShape While WholeFileReader Xdivy XlaClusterOutput XlaEinsum
    XlaSharding XlaSpmdFullToShardShape XlaSpmdShardToFullShape XlaVariadicReduce Xlog1py Xlogy
    ZerosLike Zeta _EagerConst
    """.split()
)
