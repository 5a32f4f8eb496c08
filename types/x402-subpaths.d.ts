// The x402 packages publish their entry points only under `exports`, which this project's module resolution
// (`node`, for CommonJS) does not read: these declarations point each subpath used at its CommonJS types.
// At run time Node resolves the same subpaths through `exports` as usual.
declare module '@x402/core/types' {
  export * from '@x402/core/dist/cjs/types/index';
}
declare module '@x402/core/http' {
  export * from '@x402/core/dist/cjs/http/index';
}
declare module '@x402/core/client' {
  export * from '@x402/core/dist/cjs/client/index';
}
declare module '@x402/core/facilitator' {
  export * from '@x402/core/dist/cjs/facilitator/index';
}
declare module '@x402/evm/exact/client' {
  export * from '@x402/evm/dist/cjs/exact/client/index';
}
declare module '@x402/evm/exact/facilitator' {
  export * from '@x402/evm/dist/cjs/exact/facilitator/index';
}
declare module '@x402/fetch' {
  export * from '@x402/fetch/dist/cjs/index';
}
