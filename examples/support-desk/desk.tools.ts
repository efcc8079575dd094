import { IsString, Length } from 'class-validator';
import { inject, injectable } from 'tsyringe';
import { EmptyInput, Field, type McpContext, Skill, Tool, ToolError } from 'mcpkit';

export interface Ticket {
  id: number;
  customer: string;
  text: string;
  open: boolean;
}

/** The desk's tickets, in memory. */
@injectable()
export class Tickets {
  readonly all: Ticket[] = [
    { id: 1, customer: 'Ada', text: 'Order 1042 arrived broken, I want my money back.', open: true },
    { id: 2, customer: 'Grace', text: 'How do I change my delivery address?', open: true },
  ];
}

export class OpenTicketInput {
  @Field('Who is asking') @IsString() @Length(1, 80) customer!: string;
  @Field('What they ask') @IsString() @Length(1, 2000) text!: string;
}

export class CloseTicketInput {
  @Field('The ticket') @IsString() id!: string;
  @Field('The decision, as told to the customer') @IsString() @Length(1, 2000) answer!: string;
}

@injectable()
export class DeskTools {
  constructor(@inject(Tickets) private readonly tickets: Tickets) {}

  @Tool({ description: 'Lists the open tickets', input: EmptyInput, annotations: { readOnlyHint: true } })
  listTickets() {
    return this.tickets.all.filter((t) => t.open);
  }

  @Tool({ description: 'Opens a ticket for a customer', input: OpenTicketInput })
  openTicket(input: OpenTicketInput) {
    const ticket = { id: this.tickets.all.length + 1, customer: input.customer, text: input.text, open: true };
    this.tickets.all.push(ticket);
    return ticket;
  }

  @Tool({ description: 'Closes a ticket with the answer given to the customer', input: CloseTicketInput })
  closeTicket(input: CloseTicketInput) {
    const ticket = this.tickets.all.find((t) => String(t.id) === input.id && t.open);
    if (!ticket) throw new ToolError(`No open ticket ${input.id}`);
    ticket.open = false;
    return `Closed ticket ${ticket.id}`;
  }

  /** A skill written at each read: the state of the desk right now (so its entry is "dynamic"). */
  @Skill({ name: 'desk-today', description: "Start here: the desk's open tickets right now, and which skill to use for each" })
  deskToday(ctx: McpContext) {
    const open = this.tickets.all.filter((t) => t.open);
    const lines = open.map(
      (t) => `- #${t.id} ${t.customer}: ${t.text}${/refund|money back/i.test(t.text) ? ' (use the refunds skill)' : ''}`,
    );
    return `# The desk today\n\nHello ${ctx.session.clientInfo?.name ?? 'there'}. ${open.length} open tickets; triage them first (the triage skill).\n\n${lines.join('\n')}\n`;
  }
}
