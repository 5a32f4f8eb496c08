/** A thing: the placeholder resource a template user replaces. */
export interface Thing {
  id: string;
  name: string;
  notes: string | null;
  created_at: string;
}
