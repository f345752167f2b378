// TC.g4 — the grammar of the .tc language (see docs/language.md).
//
// Decisions where the spec is loose are recorded in docs/language.md, section
// "Grammar decisions". In short:
//  * logical operators are spelled `and`, `or`, `not` (Python); `&&`, `||` and
//    `!` are recognised only to give a helpful diagnostic;
//  * `//` is floor division when it directly follows an operand (identifier,
//    literal, `)` or `]`) on the same line, and starts a line comment otherwise;
//  * conditions of `if`/`while` and the iterable of `for` take no parentheses;
//    bodies are always braced blocks;
//  * struct literals `Name{field: value, ...}` need at least one named member,
//    which keeps `for i in x { ... }` unambiguous;
//  * `min=` / `max=` compound assignments are written `a min= b` (the operator
//    name followed by `=`).
//  * a parenthesised list of two or more expressions, `(a, b)`, is a tuple
//    (`ndrange((0, n), (1, m))`); it builds the same AST node as `[a, b]`.
grammar TC;

@lexer::members {
  // Type of the last token sent to the parser on the default channel and the
  // line it ended on; used to tell floor division `//` from a line comment.
  size_t lastSignificantType = 0;
  size_t lastSignificantLine = 0;

  bool slashSlashIsOperator() {
    if (getLine() != lastSignificantLine)
      return false;
    switch (lastSignificantType) {
    case Identifier: case IntLiteral: case FloatLiteral: case RParen:
    case RBracket: case KwTrue: case KwFalse:
      return true;
    default:
      return false;
    }
  }

  std::unique_ptr<antlr4::Token> nextToken() override {
    std::unique_ptr<antlr4::Token> tok = antlr4::Lexer::nextToken();
    if (tok->getChannel() == antlr4::Token::DEFAULT_CHANNEL) {
      lastSignificantType = tok->getType();
      lastSignificantLine = getLine();
    }
    return tok;
  }
}

// ---------------------------------------------------------------------------
// Top level
// ---------------------------------------------------------------------------

program : moduleDecl? topDecl* EOF ;

// `module NAME;`, `module NAME(default_fp: f64);` or `module(default_fp: f64);`
moduleDecl
  : KwModule Identifier? (LParen moduleOption (Comma moduleOption)* Comma? RParen)? Semi ;
moduleOption : Identifier Colon typeExpr ;

topDecl
  : constDecl
  | typeAliasDecl
  | structDecl
  | fieldDecl
  | layoutDecl
  | functionDecl
  | instanceDecl
  | staticAssertDecl
  ;

constDecl : KwConst Identifier (Colon typeExpr)? Assign expression Semi ;

typeAliasDecl : KwType Identifier Assign typeExpr Semi ;

structDecl : KwStruct Identifier LBrace (structMember (Comma structMember)* Comma?)? RBrace Semi? ;
structMember : Identifier Colon typeExpr ;

fieldDecl
  : KwField Identifier (Comma Identifier)* Colon typeExpr
    (LBracket (expression (Comma expression)*)? RBracket)? fieldFlag* Semi ;
fieldFlag : KwNeedsGrad | KwNeedsDual ;

layoutDecl : KwLayout LBrace layoutStmt* RBrace ;
layoutStmt
  : KwLet Identifier Assign expression Semi   # LayoutLet
  | expression Semi                           # LayoutExpr
  ;

functionDecl
  : attribute* kind=(KwKernel | KwFunc) Identifier
    LParen (param (Comma param)* Comma?)? RParen (Arrow typeExpr)? block ;
attribute : At Identifier (LParen (argument (Comma argument)*)? RParen)? ;
param : Identifier (Colon typeExpr)? ;

instanceDecl : KwInstance Identifier Assign Identifier LParen (argument (Comma argument)*)? RParen Semi ;

staticAssertDecl : KwStaticAssert LParen expression (Comma StringLiteral)? RParen Semi ;

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

typeExpr
  : KwTemplate                                                        # TemplateType
  | Identifier Dot Identifier LParen (argument (Comma argument)*)? RParen # QuantType
  | Identifier Lt typeArg (Comma typeArg)* Gt                         # GenericType
  | Identifier                                                        # NamedType
  ;
typeArg : typeExpr | IntLiteral | LParen expression RParen ;

// ---------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------

block : LBrace statement* RBrace ;

statement
  : KwLet Identifier (Comma Identifier)+ Assign expression Semi           # DestructureStmt
  | KwVar Identifier (Comma Identifier)+ Assign expression Semi           # VarDestructureStmt
  | KwLet Identifier (Colon typeExpr)? Assign expression Semi            # LetStmt
  | KwVar Identifier (Colon typeExpr)? (Assign expression)? Semi         # VarStmt
  | ifStmt                                                               # IfStatement
  | KwWhile expression block                                             # WhileStmt
  | KwFor Identifier (Comma Identifier)* KwIn expression block           # ForStmt
  | KwBreak Semi                                                         # BreakStmt
  | KwContinue Semi                                                      # ContinueStmt
  | KwReturn expression? Semi                                            # ReturnStmt
  | KwStaticAssert LParen expression (Comma StringLiteral)? RParen Semi  # StaticAssertStmt
  | expression (Comma expression)+ Assign expression (Comma expression)* Semi # TupleAssignStmt
  | expression op=(Assign | PlusAssign | MinusAssign | StarAssign | SlashAssign
                  | FloorDivAssign | PercentAssign | AmpAssign | PipeAssign
                  | CaretAssign | ShlAssign | ShrAssign | PowAssign) expression
    (Assign expression)* Semi                                            # AssignStmt
  | expression Identifier Assign expression Semi                         # NamedAssignStmt
  | expression Semi                                                      # ExprStmt
  | block                                                                # BlockStmt
  | Semi                                                                 # EmptyStmt
  ;

ifStmt : KwIf expression block (KwElse (ifStmt | block) | elifClause)? ;
// Python's `elif` is recognised only to report "write 'else if'".
elifClause : KwElif expression block (KwElse (ifStmt | block) | elifClause)? ;

// ---------------------------------------------------------------------------
// Expressions, tightest first (Python precedence).
// ---------------------------------------------------------------------------

expression
  : primary                                                               # PrimaryExpr
  | expression LParen (argument (Comma argument)*)? Comma? RParen         # CallExpr
  | expression LBracket (expression (Comma expression)*)? RBracket        # IndexExpr
  | expression Dot Identifier                                             # MemberExpr
  | <assoc=right> expression Pow expression                               # PowExpr
  | op=(Minus | Plus | Tilde | Bang) expression                           # UnaryExpr
  | expression op=(Star | Slash | FloorDiv | Percent | At) expression     # MulExpr
  | expression op=(Plus | Minus) expression                               # AddExpr
  | expression op=(Shl | Shr) expression                                  # ShiftExpr
  | expression Amp expression                                             # BitAndExpr
  | expression Caret expression                                           # BitXorExpr
  | expression Pipe expression                                            # BitOrExpr
  | expression op=(Eq | Ne | Lt | Le | Gt | Ge) expression                # CompareExpr
  | KwNot expression                                                      # NotExpr
  | expression op=(KwAnd | AndAnd) expression                             # AndExpr
  | expression op=(KwOr | OrOr) expression                                # OrExpr
  | <assoc=right> expression KwIf expression KwElse expression            # TernaryExpr
  ;

primary
  : IntLiteral                                                            # IntLit
  | FloatLiteral                                                          # FloatLit
  | (KwTrue | KwFalse)                                                    # BoolLit
  | StringLiteral                                                         # StringLit
  | Identifier LBrace structInit (Comma structInit)* Comma? RBrace        # StructLit
  | Identifier                                                            # NameRef
  | KwStatic LParen expression RParen                                     # StaticExpr
  | KwCast Lt typeExpr Gt LParen expression RParen                        # CastExpr
  | LBracket (expression (Comma expression)* Comma?)? RBracket            # ListLit
  | LParen expression (Comma expression)+ Comma? RParen                   # TupleLit
  | LParen expression RParen                                              # ParenExpr
  ;

structInit : Identifier Colon expression ;

argument : (Identifier Colon)? expression ;

// ---------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------

KwModule : 'module' ;
KwConst : 'const' ;
KwType : 'type' ;
KwStruct : 'struct' ;
KwField : 'field' ;
KwLayout : 'layout' ;
KwKernel : 'kernel' ;
KwFunc : 'func' ;
KwInstance : 'instance' ;
KwTemplate : 'template' ;
KwLet : 'let' ;
KwVar : 'var' ;
KwIf : 'if' ;
KwElse : 'else' ;
KwElif : 'elif' ;
KwWhile : 'while' ;
KwFor : 'for' ;
KwIn : 'in' ;
KwBreak : 'break' ;
KwContinue : 'continue' ;
KwReturn : 'return' ;
KwAnd : 'and' ;
KwOr : 'or' ;
KwNot : 'not' ;
KwTrue : 'true' ;
KwFalse : 'false' ;
KwStatic : 'static' ;
KwStaticAssert : 'static_assert' ;
KwCast : 'cast' ;
KwNeedsGrad : 'needs_grad' ;
KwNeedsDual : 'needs_dual' ;

PowAssign : '**=' ;
FloorDivAssign : '//=' ;
ShlAssign : '<<=' ;
ShrAssign : '>>=' ;
PlusAssign : '+=' ;
MinusAssign : '-=' ;
StarAssign : '*=' ;
SlashAssign : '/=' ;
PercentAssign : '%=' ;
AmpAssign : '&=' ;
PipeAssign : '|=' ;
CaretAssign : '^=' ;
Arrow : '->' ;
Pow : '**' ;
FloorDiv : '//' {slashSlashIsOperator()}? ;
Shl : '<<' ;
Shr : '>>' ;
Eq : '==' ;
Ne : '!=' ;
Le : '<=' ;
Ge : '>=' ;
AndAnd : '&&' ;
OrOr : '||' ;
Lt : '<' ;
Gt : '>' ;
Assign : '=' ;
Plus : '+' ;
Minus : '-' ;
Star : '*' ;
Slash : '/' ;
Percent : '%' ;
At : '@' ;
Amp : '&' ;
Pipe : '|' ;
Caret : '^' ;
Tilde : '~' ;
Bang : '!' ;
LParen : '(' ;
RParen : ')' ;
LBracket : '[' ;
RBracket : ']' ;
LBrace : '{' ;
RBrace : '}' ;
Comma : ',' ;
Colon : ':' ;
Semi : ';' ;
Dot : '.' ;

FloatLiteral
  : Digits '.' Digits? Exponent? 'f'?
  | '.' Digits Exponent? 'f'?
  | Digits Exponent 'f'?
  ;
IntLiteral
  : '0' [xX] [0-9a-fA-F] ('_'? [0-9a-fA-F])*
  | '0' [bB] [01] ('_'? [01])*
  | Digits
  ;
// `0x` / `0b` without digits; reported by the front end.
IncompleteIntLiteral : '0' [xXbB] ;
fragment Digits : [0-9] ('_'? [0-9])* ;
fragment Exponent : [eE] [+-]? [0-9]+ ;

StringLiteral : '"' (~["\\\r\n] | '\\' ~[\r\n])* '"' ;
UnterminatedString : '"' (~["\\\r\n] | '\\' ~[\r\n])* ;

Identifier : [A-Za-z_] [A-Za-z0-9_]* ;

LineComment : '//' {!slashSlashIsOperator()}? ~[\r\n]* -> channel(HIDDEN) ;
BlockComment : '/*' (~'*' | '*'+ ~[*/])* '*'+ '/' -> channel(HIDDEN) ;
UnterminatedComment : '/*' (~'*' | '*'+ ~[*/])* '*'* EOF ;
Whitespace : [ \t\r\n\f]+ -> channel(HIDDEN) ;

// Anything else is reported by the front end as an invalid character.
Unknown : . ;
