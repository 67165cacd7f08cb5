export class DestinationInputError extends Error {}
export class DestinationNotFoundError extends Error {}
export class DestinationConflictError extends Error {}
