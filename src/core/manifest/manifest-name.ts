/** The file plan, prepare and status look for when none is named (#17). Apart from the schema, so status does not load zod. */
export const MANIFEST_FILE_NAME = 'headspace.yml';
